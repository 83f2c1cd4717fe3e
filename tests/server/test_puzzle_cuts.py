"""Puzzles cut in the background (``server/puzzles.py``, ``PuzzleCutter``): a finished game's
clear positions enter the pool for everyone without any request, its analysis is stored on the
way (the profile's accuracy), and a restarted server does not cut a game again; puzzles chosen
by rule family."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from playerkit import Browser, play_out
from serverkit import Server, bot, human


def rows(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """The rows of a query on the server's SQLite database."""
    with sqlite3.connect(url.split("///", 1)[1]) as connection:
        return connection.execute(sql, args).fetchall()


def cut_of(url: str, table: str, limit_s: float = 300) -> int:
    """How many puzzles the background cutting found in the game, once it has cut it."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        found = rows(url, "SELECT found FROM puzzle_cuts WHERE table_id = ?", table)
        if found and found[0][0] >= 0:
            return int(found[0][0])
        time.sleep(0.5)
    raise AssertionError(f"table {table} was not cut in {limit_s} s")


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from ``/proc``)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (not gone, not a zombie)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("end", ["stop", "kill"])
def test_worker_processes_end_with_their_server(start_server: Callable[..., Server], sqlite_url: str,
                                                end: str) -> None:
    """The worker processes (the one that cuts puzzles and analyses games, those that search
    the master's moves) do not outlive their server, whether it stops (SIGTERM) or is killed
    with kill -9 while they are idle."""
    server = start_server(sqlite_url, bot_delay="0", puzzle_cuts="600")
    created = server.create([human("Eleni"), bot("master")], rules="greek,target=10")
    play_out(Browser(server), created["table"]["id"], created["token"])
    cut_of(sqlite_url, created["table"]["id"])
    assert server.process is not None
    workers = children(server.process.pid)
    assert len(workers) >= 2, "the cutting and the master's search ran in worker processes"
    server.stop() if end == "stop" else server.kill()
    deadline = time.monotonic() + 120
    while any(map(alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:
        os.kill(pid, 9)
    assert not left, f"the server's worker processes {left} outlived it"


def test_a_finished_games_clear_positions_enter_the_pool_without_a_request(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, bot_delay="0", puzzle_cuts="600")
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=10")
    table, token = created["table"]["id"], created["token"]
    Browser(server).sign_up("Eleni", seats=[{"table": table, "token": token}])
    play_out(Browser(server), table, token)
    found = cut_of(sqlite_url, table)
    kept = rows(sqlite_url, "SELECT id, origin, owner FROM puzzles WHERE table_id = ?", table)
    assert found == len(kept) > 0, "a round leaves positions where one card is clearly best"
    assert {(origin, owner) for _, origin, owner in kept} == {("game", None)}
    assert rows(sqlite_url, "SELECT count(*) FROM analyses WHERE table_id = ?", table) == [(1,)]
    trend = httpx.get(f"{server.http}/api/players/Eleni").json()["statistics"]["accuracy"]
    assert [game["table"] for game in trend] == [table]  # the profile's accuracy, nothing asked
    assert 0 <= trend[0]["accuracy"] <= 100
    for (puzzle_id, _, _) in kept:  # anyone may be set them
        shown = httpx.get(f"{server.http}/api/puzzles/{puzzle_id}")
        assert shown.status_code == 200, shown.text
        assert "answers" not in shown.json() and shown.json()["view"]["seat"] in (0, 1)
    # another game finished: cut next; the first is not cut again, even after a restart
    second = server.create([human("Nikos"), bot("greedy")], rules="greek,target=10")
    play_out(Browser(server), second["table"]["id"], second["token"])
    cut_of(sqlite_url, second["table"]["id"])
    server.stop()
    before = rows(sqlite_url, "SELECT table_id, found, at FROM puzzle_cuts ORDER BY table_id")
    again = start_server(sqlite_url, puzzle_cuts="600")
    assert httpx.get(f"{again.http}/api/puzzles/{kept[0][0]}").status_code == 200
    time.sleep(1.0)  # some ten rounds of the cutting
    assert rows(sqlite_url, "SELECT table_id, found, at FROM puzzle_cuts ORDER BY table_id") == before
    assert len(before) == 2


def test_puzzles_by_rule_family(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, puzzle_cuts="0")
    guest = httpx.Client(base_url=server.http)
    families = guest.get("/api/puzzles/families").json()["families"]
    assert {entry["family"] for entry in families} == {"greek", "pisti"}
    assert all(entry["puzzles"] >= 20 for entry in families)
    for family in ("greek", "pisti"):
        seen = []
        for _ in range(3):
            puzzle = guest.get("/api/puzzles/next", params={"family": family, "skip": ",".join(seen)}).json()
            assert puzzle["view"]["rules"]["name"] == family
            seen.append(puzzle["id"])
        daily = guest.get("/api/puzzles/daily", params={"family": family}).json()
        assert daily["view"]["rules"]["name"] == family
    missing = guest.get("/api/puzzles/daily", params={"family": "faro"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no-such-family"
    bad = guest.get("/api/puzzles/next", params={"family": "Greek; drop"})
    assert bad.status_code == 422
    none_left = guest.get("/api/puzzles/next", params={"family": "faro"})
    assert none_left.status_code == 404 and none_left.json()["error"]["code"] == "no-puzzle-left"

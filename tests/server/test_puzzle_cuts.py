"""Puzzles cut in the background (``server/puzzles.py``, ``PuzzleCutter``): a finished game's
clear positions enter the pool for everyone without any request, its analysis is stored on the
way, and a restarted server does not cut a game again."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser, Player
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


def test_a_finished_games_clear_positions_enter_the_pool_without_a_request(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, bot_delay="0", puzzle_cuts="600")
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=10")
    table, token = created["table"]["id"], created["token"]

    async def play() -> None:
        player = await Player.connect(Browser(server), table, token)
        await player.play_to_the_end()
        await player.close()

    asyncio.run(play())
    found = cut_of(sqlite_url, table)
    kept = rows(sqlite_url, "SELECT id, origin, owner FROM puzzles WHERE table_id = ?", table)
    assert found == len(kept) > 0, "a round leaves positions where one card is clearly best"
    assert {(origin, owner) for _, origin, owner in kept} == {("game", None)}
    assert rows(sqlite_url, "SELECT count(*) FROM analyses WHERE table_id = ?", table) == [(1,)]
    for (puzzle_id, _, _) in kept:  # anyone may be set them
        shown = httpx.get(f"{server.http}/api/puzzles/{puzzle_id}")
        assert shown.status_code == 200, shown.text
        assert "answers" not in shown.json() and shown.json()["view"]["seat"] in (0, 1)
    # another game finished: cut next; the first is not cut again, even after a restart
    second = server.create([human("Nikos"), bot("greedy")], rules="greek,target=10")

    async def play_second() -> None:
        player = await Player.connect(Browser(server), second["table"]["id"], second["token"])
        await player.play_to_the_end()
        await player.close()

    asyncio.run(play_second())
    cut_of(sqlite_url, second["table"]["id"])
    server.stop()
    before = rows(sqlite_url, "SELECT table_id, found, at FROM puzzle_cuts ORDER BY table_id")
    again = start_server(sqlite_url, puzzle_cuts="600")
    assert httpx.get(f"{again.http}/api/puzzles/{kept[0][0]}").status_code == 200
    time.sleep(1.0)  # some ten rounds of the cutting
    assert rows(sqlite_url, "SELECT table_id, found, at FROM puzzle_cuts ORDER BY table_id") == before
    assert len(before) == 2

"""An arena through the real server on loopback, the server's clock set by the test: whoever
finishes is paired again at once with someone waiting (never the opponent just met while
another is there), until the arena's end, after which the games under way finish and nothing
new is paired; points per game (2 a win, 1 a draw) recomputed from the tables' own final
states."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

from playerkit import Browser, Player
from serverkit import Server
from test_tournaments import RULES, enter, show, wait_for

from kseri.bench import arena

Json = dict[str, Any]
NAMES = ["ana", "ben", "cleo"]


async def keep_playing(browser: Browser, tournament_id: str, finals: dict[str, Json]) -> None:
    """Play each table this player is sent to, until the arena is over."""
    done: set[str] = set()
    async with asyncio.timeout(240):
        while True:
            data = await asyncio.to_thread(show, browser, tournament_id)
            if data["status"] == "finished":
                return
            table = data["my_table"]
            if table and table not in done:
                done.add(table)
                player = await Player.connect(browser, table)
                try:
                    finals[table] = await player.play_to_the_end()
                finally:
                    await player.close()
            await asyncio.sleep(0.2)


async def an_arena(browsers: list[Browser], tournament_id: str,
                   clock: Callable[[str], None]) -> dict[str, Json]:
    finals: dict[str, Json] = {}
    playing = [asyncio.ensure_future(keep_playing(b, tournament_id, finals)) for b in browsers]
    async with asyncio.timeout(240):
        while len(finals) < 5:  # five games played: the arena's time runs out
            await asyncio.sleep(0.2)
    clock("2026-12-04T12:01:00+00:00")
    await asyncio.gather(*playing)
    return finals


def test_an_arena_played_to_its_end(start_server: Callable[..., Server], sqlite_url: str,
                                    clock: Callable[[str], None]) -> None:
    server = start_server(sqlite_url)
    browsers = enter(server, NAMES)
    created = browsers[0].post("/api/tournaments", {"name": "Arena", "rules": RULES, "format": "arena",
                                                   "minutes": 1, "starts_in": 3600})
    assert created.status_code == 201, created.text
    tid = created.json()["id"]
    for browser in browsers[1:]:
        assert browser.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert browsers[0].post(f"/api/tournaments/{tid}/start").status_code == 204
    finals = asyncio.run(an_arena(browsers, tid, clock))
    data = wait_for(lambda: (d := show(browsers[0], tid))["status"] == "finished" and d)
    played = data["pairings"][0]["games"]
    assert len(played) == len(finals) >= 5, "every game's table played to its end; none after the end"
    points = dict.fromkeys(NAMES, 0)
    opponents: dict[str, list[str]] = {n: [] for n in NAMES}
    for g in played:
        table = finals[g["table"]]["table"]
        assert [s["name"] for s in table["seats"]] == [g["first"], g["second"]]
        winner = table["winner"]
        assert g["score"] == (1.0 if winner == 0 else 0.0 if winner == 1 else 0.5)
        for seat, name in enumerate((g["first"], g["second"])):
            points[name] += arena.DRAW if winner is None else arena.WIN if winner == seat else arena.LOSS
            opponents[name].append(g["second"] if seat == 0 else g["first"])
    for name, met in opponents.items():
        assert all(a != b for a, b in itertools.pairwise(met)), f"{name} met {met}"
    seeds = {finals[g["table"]]["fairness"]["revealed"][0]["deal_seed"] for g in played}
    assert len(seeds) == len(played), "each game its own cards"
    shown = {e["username"]: e["score"] for e in data["standings"]}
    assert shown == {n: float(p) for n, p in points.items()}
    assert [e["score"] for e in data["standings"]] == sorted(shown.values(), reverse=True)

"""Forfeits through the real server on loopback, the server's clock set by the test
(``KSERI_CLOCK_FILE``): a player who does not come to their table within the tournament's
``show_within`` loses that round by forfeit, is withdrawn after two and paired no more; the
standings count the forfeits; a round where nobody came is lost by both."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from playerkit import Browser, Player
from serverkit import Server
from test_tournaments import RULES, enter
from test_tournaments_live import Viewer
from websockets.exceptions import ConnectionClosed

Json = dict[str, Any]


def games_of(data: Json, number: int) -> list[Json]:
    """The games of round ``number`` (none before it is paired)."""
    return next((r["games"] for r in data["pairings"] if r["round"] == number), [])


def tabled(data: Json, number: int) -> bool:
    """Whether round ``number`` is paired with every table open."""
    games = games_of(data, number)
    return bool(games) and all(g["table"] or g["second"] is None for g in games)


async def come(browser: Browser, table: str, absent: bool, go: asyncio.Event | None = None) -> Json:
    """Sit at the table and, once ``go`` is set, play it to the end (its last state); or (facing
    an absent player) say ready and wait for the table, never begun, to be removed
    (``{"removed": why}``)."""
    player = await Player.connect(browser, table)
    try:
        if not absent:
            if go is not None:
                await go.wait()
            return await player.play_to_the_end()
        await player.send({"type": "ready"})
        async with asyncio.timeout(60):
            while True:
                await player.receive()
    except ConnectionClosed as closed:
        return {"removed": closed.rcvd.reason if closed.rcvd else ""}
    finally:
        await player.close()


async def a_no_show_forfeited_twice(server: Server, clock: Callable[[str], None]) -> None:
    browsers = enter(server, ["ana", "ben", "cleo", "dimos"])
    names = dict(zip(["ana", "ben", "cleo", "dimos"], browsers, strict=True))
    created = browsers[0].post("/api/tournaments", {"name": "Punctual", "rules": RULES, "rounds": 3,
                                                   "starts_in": 3600, "show_within": 30}).json()
    tid = created["id"]
    assert created["show_within"] == 30
    for browser in browsers[1:]:
        assert browser.post(f"/api/tournaments/{tid}/join").status_code == 204
    viewer = await Viewer.connect(browsers[0], tid)
    assert (await asyncio.to_thread(browsers[0].post, f"/api/tournaments/{tid}/start")).status_code == 204
    for number, now in ((1, "2026-12-04T12:00:31+00:00"), (2, "2026-12-04T12:01:02+00:00")):
        data = await viewer.until(lambda d, n=number: tabled(d, n))  # type: ignore[misc]
        sitting, go = [], asyncio.Event()
        for g in games_of(data, number):
            if g["second"] is None:
                continue
            absent = "dimos" in (g["first"], g["second"])
            for name in (g["first"], g["second"]):
                if name != "dimos":
                    sitting.append(asyncio.ensure_future(come(names[name], g["table"], absent, go)))
        # everyone but dimos seen at their table; then the time to come runs out
        seen = await viewer.until(lambda d, n=number: all(
            g["came"] == [g["first"] != "dimos", g["second"] != "dimos"]
            for g in games_of(d, n) if g["second"]))
        assert all(g["forfeit"] is None for g in games_of(seen, number))
        clock(now)
        go.set()
        finals = await asyncio.gather(*sitting)
        data = await viewer.until(lambda d, n=number: all(g["score"] is not None for g in games_of(d, n)))
        lost = next(g for g in games_of(data, number) if "dimos" in (g["first"], g["second"]))
        assert lost["forfeit"] == ("first" if lost["first"] == "dimos" else "second")
        assert lost["score"] == (0.0 if lost["first"] == "dimos" else 1.0) and lost["points"] is None
        removed = [f["removed"] for f in finals if "removed" in f]
        assert removed == ["a player did not come in time: the game is lost by forfeit"], \
            "the table never begun is removed, its player told why"
        played = [g for g in games_of(data, number) if g is not lost and g["second"]]
        assert all(g["forfeit"] is None and g["points"] is not None for g in played)

    third = games_of(await viewer.until(lambda d: tabled(d, 3)), 3)
    await asyncio.gather(*(come(names[name], g["table"], False)
                           for g in third if g["second"] for name in (g["first"], g["second"])))
    data = await viewer.until(lambda d: d["status"] == "finished")
    assert {p["username"]: p["withdrawn"] for p in data["players"]} == {
        "ana": False, "ben": False, "cleo": False, "dimos": True}, "withdrawn after two forfeits"
    third = games_of(data, 3)
    assert "dimos" not in {g["first"] for g in third} | {g["second"] for g in third}
    assert [g["second"] for g in third].count(None) == 1, "three players left: one bye"
    table = {e["username"]: e for e in data["standings"]}
    assert table["dimos"]["forfeits"] == 2 and table["dimos"]["score"] == 0
    assert all(table[n]["forfeits"] == 0 for n in ("ana", "ben", "cleo"))
    assert sum(e["score"] for e in data["standings"]) == 2 + 2 + 1 + 1, "two games a round, a bye"
    await viewer.connection.close()


def test_a_player_who_does_not_come_forfeits_and_is_withdrawn_after_two(
        start_server: Callable[..., Server], sqlite_url: str, clock: Callable[[str], None]) -> None:
    server = start_server(sqlite_url)
    asyncio.run(a_no_show_forfeited_twice(server, clock))


async def nobody_comes(server: Server, clock: Callable[[str], None]) -> None:
    eva, finn = enter(server, ["eva", "finn"])
    tid = eva.post("/api/tournaments", {"name": "Empty", "rules": RULES, "rounds": 3, "starts_in": 3600,
                                        "show_within": 30}).json()["id"]
    assert finn.post(f"/api/tournaments/{tid}/join").status_code == 204
    viewer = await Viewer.connect(eva, tid)
    assert (await asyncio.to_thread(eva.post, f"/api/tournaments/{tid}/start")).status_code == 204
    await viewer.until(lambda d: tabled(d, 1))
    clock("2026-12-04T12:00:31+00:00")
    await viewer.until(lambda d: tabled(d, 2))
    clock("2026-12-04T12:01:02+00:00")
    data = await viewer.until(lambda d: d["status"] == "finished")
    assert [g["forfeit"] for r in data["pairings"] for g in r["games"]] == ["both", "both"]
    assert all(p["withdrawn"] for p in data["players"]), "both withdrawn: the tournament ends early"
    assert [(e["score"], e["forfeits"]) for e in data["standings"]] == [(0.0, 2), (0.0, 2)]
    await viewer.connection.close()


def test_a_round_nobody_comes_to_is_lost_by_both(start_server: Callable[..., Server], sqlite_url: str,
                                                 clock: Callable[[str], None]) -> None:
    server = start_server(sqlite_url)
    asyncio.run(nobody_comes(server, clock))

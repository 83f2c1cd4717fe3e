"""Tournaments in a cluster (real PostgreSQL, Redis and ``kseri serve`` processes): one process
at a time drives a tournament under its lease, and a ``kill -9`` of that process hands the
tournament to another, which finishes it with no result lost or counted twice; a change made on
one process reaches the live viewers of another."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from clusterkit import Cluster
from playerkit import Browser, Player
from serverkit import Server
from test_tournaments import RULES, recomputed, show, wait_for
from test_tournaments_live import Viewer
from websockets.exceptions import ConnectionClosed

Json = dict[str, Any]

NAMES = ["ana", "ben", "cleo", "dimos"]


def driver(cluster: Cluster, tournament_id: str) -> Server:
    """The process whose lease drives the tournament now (by its log's id line)."""
    process = cluster.rows("SELECT driver FROM tournaments WHERE id = $1", tournament_id)[0]["driver"]
    found = next((s for s in cluster.servers if process and f"process {process}" in s.output()), None)
    assert found is not None, process
    return found


async def play_to_the_end(browser: Browser, table: str) -> Json:
    """Play a table to its end, reconnecting when told to (a table taken over by another process
    closes its connections with 1012, as a client of the page reconnects)."""
    while True:
        player = None
        try:
            player = await Player.connect(browser, table)
            return await player.play_to_the_end()
        except ConnectionClosed as closed:
            if closed.rcvd is None or closed.rcvd.code not in (1012, 1013):
                raise
        finally:
            if player is not None:
                await player.close()
        await asyncio.sleep(0.3)


async def play_tournament(browsers: list[Browser], tournament_id: str, finals: dict[str, Json]) -> None:
    """Every player plays each table they are sent to until the tournament is over."""
    async def one(browser: Browser) -> None:
        done: set[str] = set()
        async with asyncio.timeout(180):
            while (data := await asyncio.to_thread(show, browser, tournament_id))["status"] != "finished":
                table = data["my_table"]
                if table and table not in done:
                    done.add(table)
                    finals[table] = await play_to_the_end(browser, table)
                await asyncio.sleep(0.2)

    await asyncio.gather(*(one(b) for b in browsers))


def test_the_driving_process_killed_the_tournament_goes_on(start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(2)
    first = cluster.servers[0]
    browsers = [Browser(first) for _ in NAMES]
    for browser, name in zip(browsers, NAMES, strict=True):
        browser.sign_up(name)
    created = browsers[0].post("/api/tournaments", {"name": "Cluster Swiss", "rules": RULES, "rounds": 2,
                                                    "starts_in": 3600})
    assert created.status_code == 201, created.text
    tid = created.json()["id"]

    async def joins_seen_elsewhere() -> None:  # joined on one process, pushed by the other
        viewer = await Viewer.connect(Browser(cluster.servers[1]), tid)
        await viewer.until(lambda d: d["entrants"] == 1)
        for browser in browsers[1:]:
            assert (await asyncio.to_thread(browser.post, f"/api/tournaments/{tid}/join")).status_code == 204
        assert [p["username"] for p in (await viewer.until(lambda d: d["entrants"] == 4))["players"]] == NAMES
        await viewer.connection.close()

    asyncio.run(joins_seen_elsewhere())
    assert browsers[0].post(f"/api/tournaments/{tid}/start").status_code == 204
    wait_for(lambda: all(g["table"] for g in show(browsers[0], tid)["pairings"][0]["games"]))
    doomed = driver(cluster, tid)
    survivor = next(s for s in cluster.servers if s is not doomed)
    doomed.kill()  # kill -9, round 1's tables open, none played

    players = [Browser(survivor) for _ in NAMES]
    for player, name in zip(players, NAMES, strict=True):
        player.sign_in(name)
    finals: dict[str, Json] = {}
    asyncio.run(play_tournament(players, tid, finals))
    data = wait_for(lambda: (d := show(players[0], tid))["status"] == "finished" and d, timeout=120)
    assert driver(cluster, tid) is survivor, "the survivor took the tournament over"
    assert [len(r["games"]) for r in data["pairings"]] == [2, 2]
    assert all(g["score"] is not None and g["forfeit"] is None for r in data["pairings"] for g in r["games"])
    rows = cluster.rows("SELECT round, count(*) AS n FROM tournament_games WHERE tournament_id = $1 "
                        "GROUP BY round ORDER BY round", tid)
    assert [(r["round"], r["n"]) for r in rows] == [(1, 2), (2, 2)], "no round paired twice"
    expected = recomputed(data, finals)  # every stored result is its table's
    shown = [(e["username"], e["score"], e["buchholz"]) for e in data["standings"]]
    assert sorted(shown, key=lambda e: (-e[1], -e[2], e[0])) == expected
    assert sum(e["score"] for e in data["standings"]) == 4

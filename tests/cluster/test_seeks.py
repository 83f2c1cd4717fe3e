"""Quick-game seeks in a cluster: one process holds them, every process shows and takes them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
from clusterkit import Cluster
from playerkit import Browser, Player


def test_seeks_on_different_processes_are_paired_and_the_match_is_rated(
        start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(2)
    eleni, nikos = Browser(cluster.servers[0]), Browser(cluster.servers[1])
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    first = eleni.post("/api/seeks", {"family": "greek", "clock": 60}).json()["id"]
    for server in cluster.servers:  # every process shows the seek
        shown = httpx.get(f"{server.http}/api/seeks").json()["seeks"]
        assert [s["username"] for s in shown] == ["Eleni"]
    second = nikos.post("/api/seeks", {"family": "greek", "clock": 60}).json()["id"]
    seats: list[dict[str, Any]] = [
        browser.http.get(f"/api/seeks/{seek}", params={"wait": 10}).json()
        for browser, seek in ((eleni, first), (nikos, second))]
    assert [s["status"] for s in seats] == ["paired", "paired"], seats
    assert seats[0]["table"] == seats[1]["table"] and {s["seat"] for s in seats} == {0, 1}
    table_id = seats[0]["table"]

    async def play() -> None:
        players = [await Player.connect(eleni, table_id), await Player.connect(nikos, table_id)]
        assert [p.seat for p in players] == [seats[0]["seat"], seats[1]["seat"]]
        await asyncio.gather(*(p.play_to_the_end(300) for p in players))
        for player in players:
            await player.close()

    asyncio.run(play())
    deadline = time.monotonic() + 15
    while not httpx.get(f"{cluster.servers[1].http}/api/players/Nikos").json()["ratings"]:
        assert time.monotonic() < deadline, "the rated match was not rated"
        time.sleep(0.2)

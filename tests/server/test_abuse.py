"""The abuse test: hostile clients (``benchmarks/attack.py``) flood, spam tables, replay, ask
for hints, send malformed messages and hold slow connections for a bounded time while real
matches run. Every real
match finishes and its record verifies; every hostile request gets a clean answer; nobody honest
is frozen out: each honest player's every play is answered. (How long they waited under attack
is for ``benchmarks/server.py --attack`` to measure; this test prints it and asserts no timing.)"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable

import httpx
from attack import attack
from serverkit import Client, Server, bot, finished, human

from kseri.records import verify_record

ATTACK_SECONDS = 20.0


async def honest_match(server: Server, number: int, clients: list[Client]) -> None:
    """A two-player match between people-like clients on an address of their own; its record
    must verify."""
    source = f"127.0.2.{number + 1}"
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(timeout=30, transport=transport) as http:
        body = {"rules": "greek,target=40", "seats": [human("A"), human("B")], "public": False}
        created = (await http.post(server.http + "/api/tables", json=body)).json()
        table_id = created["table"]["id"]
        joined = (await http.post(server.http + f"/api/tables/{table_id}/join", json={})).json()
        players = [await Client.connect(server, table_id, token, source=source)
                   for token in (created["token"], joined["token"])]
        clients.extend(players)
        await asyncio.gather(*(player.play_until(finished, timeout=240) for player in players))
        for player in players:
            await player.close()
        record = (await http.get(server.http + f"/api/tables/{table_id}/record")).json()
    assert verify_record(record) == [], f"the record of {table_id} does not verify"


async def test_real_matches_finish_and_verify_while_hostile_clients_attack(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits="rate=20", bot_delay="0")
    body = {"seats": [bot(), bot()], "public": False}
    long_table = httpx.post(server.http + "/api/tables", json=body, timeout=10).json()["table"]["id"]
    clients: list[Client] = []
    stop = time.monotonic() + ATTACK_SECONDS

    async def honest_until_the_attack_ends(lane: int) -> int:
        played = 0
        while time.monotonic() < stop:
            await honest_match(server, lane * 50 + played, clients)
            played += 1
        return played

    results = await asyncio.gather(attack(server.http, ATTACK_SECONDS, long_table),
                                   *(honest_until_the_attack_ends(lane) for lane in range(4)))
    seen, matches = results[0], results[1:]
    assert sum(matches) >= 4, f"only {sum(matches)} honest matches were played"
    # the attackers met the limits, and were answered
    assert seen["flood answered throttled"] > 0 and seen["flood answered bad-json"] > 0
    assert seen["tables 429"] > 0 and seen["big bodies 413"] > 0
    assert seen["connections refused"] > 0 and seen["held connections"] == 64
    assert seen["hints answered hint"] > 0 and seen["replays"] > 0
    # the slow client was held to its address's ceiling, and its headers timed out
    assert seen["slow connections answered 503"] > 0 and seen["slow connections answered 408"] > 0
    # two accounts seeking each other in a loop: one rated game at a time (409 in-game meanwhile)
    assert 1 <= seen["seek tables opened"] <= 2 and seen["seeks 409"] > 0
    latencies = sorted(latency for client in clients for latency in client.latencies)
    p99 = latencies[int(len(latencies) * 0.99)]
    print(f"{sum(matches)} honest matches, {len(latencies)} plays: median "
          f"{statistics.median(latencies) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms under attack; {dict(seen)}")
    assert "Traceback" not in server.output()

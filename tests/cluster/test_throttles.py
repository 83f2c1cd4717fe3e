"""The cluster's allowances are one (``server/throttles.py``): a client rotating across the
processes meets the throttle it would meet on one process, the WebSockets it holds count on
every process, and ``max_live_tables`` is a ceiling on the whole cluster's tables."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import httpx
import pytest
import websockets
from clusterkit import Cluster
from playerkit import Browser
from serverkit import Client, Server, human

OPEN = "connections_per_address=100000,http_connections_per_address=100000"
"""Every test here opens its connections from one address (loopback)."""


def create(server: Server) -> httpx.Response:
    return httpx.post(f"{server.http}/api/tables", json={"seats": [human(), human()]}, timeout=20)


def test_a_client_rotating_across_three_processes_meets_one_table_allowance(
        start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(3, limits=f"{OPEN},tables_per_minute=1,tables_burst=4")
    answers = [create(cluster.servers[number % 3]) for number in range(4)]
    assert [a.status_code for a in answers] == [201] * 4, [a.text for a in answers]
    for server in cluster.servers:  # 12 if each process counted alone
        refused = create(server)
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "throttled" and int(refused.headers["Retry-After"]) >= 1
    # a seek may open a table: it spends the same allowance, whichever process it reaches
    eleni = Browser(cluster.servers[1])
    eleni.sign_up("Eleni")
    refused = eleni.post(f"{cluster.servers[2].http}/api/seeks", {"family": "greek", "clock": 60})
    assert refused.status_code == 429 and "new tables" in refused.json()["error"]["message"], refused.text


def test_sign_ups_and_failed_sign_ins_are_counted_by_the_whole_cluster(
        start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(3, limits=f"{OPEN},signups_per_hour=2,failed_signins=2")
    browsers = [Browser(server) for server in cluster.servers]
    browsers[0].sign_up("Eleni")
    browsers[1].sign_up("Nikos")
    refused = browsers[2].sign_up("Cleo", status=429)
    assert refused["error"]["code"] == "throttled" and refused["error"]["reason"] == "signups"
    for browser in browsers[:2]:
        browser.sign_in("Eleni", "a wrong password", status=401)
    refused = browsers[2].sign_in("Eleni", status=429)  # even with the right password: 2 failures were seen
    assert refused["error"]["reason"] == "signins", refused


def test_max_live_tables_is_the_clusters_ceiling(start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(3, limits=f"{OPEN},tables_per_minute=1000,tables_burst=1000,max_live_tables=3")
    first, second, third = cluster.servers
    for server in (first, first, second):
        assert create(server).status_code == 201
    deadline = time.monotonic() + 30  # each process learns the others' counts within a second or so
    while "kseri_tables_in_play 3.0" not in httpx.get(f"{third.http}/metrics", timeout=20).text:
        assert time.monotonic() < deadline, httpx.get(f"{third.http}/metrics").text
        time.sleep(0.2)
    refused = create(third)  # it holds none itself
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "too-many-tables", refused.text


CAP = 30
"""WebSockets one address may hold at once in the test below (new ones: 30 a minute, one every 2 s)."""


async def admitted(server: Server, table_id: str) -> Client | None:
    """A spectator's connection after waiting for the address's next new-connection token
    (``None``: the upgrade was refused, 403)."""
    await asyncio.sleep(60 / CAP + 0.2)
    try:
        return await Client.connect(server, table_id)
    except websockets.InvalidStatus as refused:
        assert refused.response.status_code == 403, refused
        return None


@pytest.mark.slow
def test_a_client_spreading_websockets_over_three_processes_meets_one_cap(
        start_cluster: Callable[..., Cluster]) -> None:
    """``connections_per_address`` counts the WebSockets an address holds on every process: a
    closed one is given back to all of them, and a killed process's stop counting."""
    cluster = start_cluster(3, limits=f"http_connections_per_address=100000,connections_per_address={CAP}")
    first, second, owner = cluster.servers
    table_id = owner.create([human(), human()])["table"]["id"]

    async def spread() -> None:
        held: dict[int, list[Client]] = {0: [], 1: [], 2: []}
        for index in [0] * 4 + [1] * 13 + [2] * 13:  # 4 + 13 + 13: each process holds under the cap
            held[index].append(await Client.connect(cluster.servers[index], table_id))
        for server in cluster.servers:
            assert await admitted(server, table_id) is None
        await held[1].pop().close()  # given back, whichever process it was counted on
        again = await admitted(second, table_id) or await admitted(owner, table_id)
        assert again is not None
        assert await admitted(first, table_id) is None
        first.kill()  # its 4 stop counting once its entry in Redis runs out
        deadline = time.monotonic() + 60
        taken = 0
        while taken < 4:
            if await admitted(cluster.servers[1 + taken % 2], table_id) is not None:
                taken += 1
            assert time.monotonic() < deadline, f"only {taken} of the killed process's 4 were given back"
        assert await admitted(second, table_id) is None and await admitted(owner, table_id) is None

    asyncio.run(spread())

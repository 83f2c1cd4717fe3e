"""The seeks in a cluster (``docs/scaling.md``): one live rated game per account, whichever
process holds the table or pairs the seeks (the seats in the shared database say who is at a
rated table); the seeks kept in Redis survive the death of the process holding them."""

from __future__ import annotations

import asyncio
import re
import signal
import time
from collections.abc import Callable
from typing import Any

import httpx
import redis
import websockets
from clusterkit import Cluster, sql
from playerkit import Browser
from serverkit import Client, Server
from sqlalchemy import insert

from kseri.server import db
from kseri.server.accounts import users
from kseri.server.players import bind_rated

PAIRING_KEY = "kseri:pairing"


def process_id(server: Server) -> str:
    """The server's id in the cluster (from its log)."""
    found = re.search(r"this is process (\w+)", server.output())
    assert found is not None, server.output()
    return found.group(1)


def seek(browser: Browser, server: Server, family: str = "greek", **body: Any) -> httpx.Response:
    """A seek from the browser's account, sent to ``server``."""
    return browser.post(f"{server.http}/api/seeks", {"family": family, "clock": 60, **body})


def status(browser: Browser, server: Server, seek_id: str, wait: float = 0) -> dict[str, Any]:
    answer = browser.http.get(f"{server.http}/api/seeks/{seek_id}", params={"wait": wait})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def paired(browser: Browser, server: Server, seek_id: str) -> dict[str, Any]:
    """The seek's seat, once paired (within a generous limit)."""
    deadline = time.monotonic() + 30
    while (found := status(browser, server, seek_id, wait=5))["status"] != "paired":
        assert time.monotonic() < deadline, found
    return found


def pairing_key_gone(cluster: Cluster) -> None:
    """Wait until no process holds the seeks (its key expired after its holder stopped)."""
    client = redis.Redis.from_url(cluster.redis_url)
    deadline = time.monotonic() + 30
    while client.get(PAIRING_KEY) is not None:
        assert time.monotonic() < deadline, "the seeks' key never expired"
        time.sleep(0.1)
    client.close()


def rated_tables_of(cluster: Cluster, username: str) -> list[str]:
    """The unfinished rated tables where the account holds a seat (the database's view)."""
    rows = cluster.rows("SELECT t.id FROM tables t JOIN seats s ON s.table_id = t.id "
                        "JOIN users u ON u.id = s.user_id WHERE u.username = $1 AND t.rated "
                        "AND NOT t.finished", username)
    return [row["id"] for row in rows]


def test_a_seek_is_refused_on_a_process_that_does_not_hold_the_accounts_rated_table(
        start_cluster: Callable[..., Cluster]) -> None:
    """The process pairing the seeks is killed mid-game; its table moves to one process and the
    seeks to another, which refuses the player's new seek, naming the table."""
    cluster = start_cluster(3)
    first, second, third = cluster.servers
    eleni, nikos = Browser(first), Browser(first)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    seeks = [seek(browser, first).json()["id"] for browser in (eleni, nikos)]
    seat = paired(eleni, first, seeks[0])
    table_id = seat["table"]
    assert cluster.owner(table_id) is first
    first.kill()

    async def reconnect() -> None:  # the player comes back through the second process: it takes the table
        deadline = time.monotonic() + 30
        while True:  # told to reconnect while the second still takes the first for alive
            try:
                client = await Client.connect(second, table_id, seat["token"])
            except (OSError, websockets.ConnectionClosed):
                assert time.monotonic() < deadline, second.output()
                await asyncio.sleep(0.2)
                continue
            await client.close()
            return

    asyncio.run(reconnect())
    pairing_key_gone(cluster)
    holder = cluster.owner(table_id)  # the second, unless the third's sweep took the table first
    assert holder in (second, third)
    other = third if holder is second else second
    answer = seek(eleni, other)  # the other process takes the seeks: it does not hold the table
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"] | {"message": ""} == {"code": "in-game", "table": table_id, "message": ""}
    held = redis.Redis.from_url(cluster.redis_url).get(PAIRING_KEY)
    assert held is not None and held.decode() == process_id(other)
    assert cluster.owner(table_id) is holder
    assert rated_tables_of(cluster, "Eleni") == [table_id]


def test_the_seeks_of_a_hung_process_are_paired_once_by_the_next(
        start_cluster: Callable[..., Cluster]) -> None:
    """Eleni's and Cleo's three-player seeks wait on a process that hangs: the next process to
    hold the seeks restores them and pairs them with Dora's. Back, the hung process pairs
    nothing it kept; when it holds the seeks again it has the paired ones, and nobody is
    seated at two rated tables."""
    cluster = start_cluster(3)
    first, second, third = cluster.servers
    browsers = {name: Browser(first) for name in ("Eleni", "Cleo", "Dora", "Fani")}
    for name, browser in browsers.items():
        browser.sign_up(name)
    ids = {name: seek(browsers[name], first, "three-player").json()["id"] for name in ("Eleni", "Cleo")}
    client = redis.Redis.from_url(cluster.redis_url)
    deadline = time.monotonic() + 30  # stored within a pairing round
    while not all(seek_id in (client.get("kseri:seeks") or b"").decode() for seek_id in ids.values()):
        assert time.monotonic() < deadline, "the seeks were never stored"
        time.sleep(0.1)
    assert first.process is not None
    first.process.send_signal(signal.SIGSTOP)  # hung: its hold on the seeks runs out
    pairing_key_gone(cluster)
    ids["Dora"] = seek(browsers["Dora"], second, "three-player").json()["id"]
    tables = {paired(browsers[name], second, seek_id)["table"] for name, seek_id in ids.items()}
    assert len(tables) == 1
    table_id = tables.pop()
    first.process.send_signal(signal.SIGCONT)
    second.stop()  # SIGTERM: it lets the seeks go
    fani = seek(browsers["Fani"], first, "three-player")  # the first holds them again
    assert fani.status_code == 201, fani.text
    assert status(browsers["Eleni"], third, ids["Eleni"])["table"] == table_id
    assert status(browsers["Fani"], third, fani.json()["id"])["status"] == "waiting"
    for name in ("Eleni", "Cleo", "Dora"):
        assert rated_tables_of(cluster, name) == [table_id]
    client.close()


def test_a_seek_survives_kill_9_of_the_process_holding_it(start_cluster: Callable[..., Cluster]) -> None:
    """The process holding the seeks is killed: the next one to hold them restores them from
    Redis, the seeker's status is still ``waiting`` there, and a newcomer is paired with it."""
    cluster = start_cluster(3)
    first, second, third = cluster.servers
    eleni, nikos = Browser(first), Browser(first)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    waiting = seek(eleni, first).json()["id"]
    client = redis.Redis.from_url(cluster.redis_url)
    deadline = time.monotonic() + 30  # stored within a pairing round
    while waiting not in (client.get("kseri:seeks") or b"").decode():
        assert time.monotonic() < deadline, "the seek was never stored"
        time.sleep(0.1)
    client.close()
    first.kill()
    pairing_key_gone(cluster)
    assert status(eleni, second, waiting)["status"] == "waiting"  # the second holds the seeks now
    shown = httpx.get(f"{third.http}/api/seeks", timeout=20).json()["seeks"]
    assert [s["username"] for s in shown] == ["Eleni"]
    other = seek(nikos, third).json()["id"]
    tables = {paired(browser, third, seek_id)["table"]
              for browser, seek_id in ((eleni, waiting), (nikos, other))}
    assert len(tables) == 1
    assert cluster.owner(tables.pop()) is second


def test_two_processes_never_both_seat_one_account_at_a_rated_table(
        services: tuple[str, str]) -> None:
    """Two stores on one PostgreSQL database (two processes' connections) each bind a new
    rated table's seats to Eleni at the same moment, twenty times over: each time exactly one
    binds, and the other is told Eleni's table and binds nothing."""
    async def race() -> None:
        stores = [await db.Store.open(services[0], shared=True) for _ in range(2)]
        try:
            async with stores[0].engine.begin() as connection:
                await connection.execute(insert(users).values(
                    [{"id": name, "username": name, "username_key": name.lower(), "password_hash": "-",
                      "created": 0.0} for name in ("eleni", "nikos", "cleo")]))
            for attempt in range(20):
                tables = [f"t{attempt}a", f"t{attempt}b"]
                async with stores[0].engine.begin() as connection:
                    for table_id in tables:
                        await connection.execute(insert(db.tables).values(
                            id=table_id, created=0.0, rules="{}", casual=False, public=False, clock=60,
                            first_dealer=0, finished=False, rated=True))
                        await connection.execute(insert(db.seats).values(
                            [{"table_id": table_id, "seat": seat, "kind": "human"} for seat in (0, 1)]))
                answers = await asyncio.gather(bind_rated(stores[0], tables[0], ["eleni", "nikos"]),
                                               bind_rated(stores[1], tables[1], ["cleo", "eleni"]))
                assert sorted(map(len, answers)) == [0, 1], answers
                won = tables[answers.index({})]
                assert answers[1 - answers.index({})] == {"eleni": won}
                rows = await sql(services[0], "SELECT s.table_id FROM seats s JOIN tables t ON t.id = "
                                 "s.table_id WHERE s.user_id = 'eleni' AND NOT t.finished")
                assert [row["table_id"] for row in rows] == [won]
                async with stores[0].engine.begin() as connection:  # that match over: the next attempt
                    await connection.execute(db.set_table(won, finished=True))
        finally:
            for store in stores:
                await store.close()

    asyncio.run(race())


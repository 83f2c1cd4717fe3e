"""Test tools for a cluster of ``kseri serve`` processes: a fresh PostgreSQL database and
Redis database for each test (from ``scripts/postgres`` and ``scripts/redis``), and N real
server processes sharing them. The services missing is a failure, never a skip."""

from __future__ import annotations

import asyncio
import itertools
import os
import secrets
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from serverkit import POSTGRES_ENV, Client, Json, Server, finished, first_card, human

REDIS_ENV = "KSERI_TEST_REDIS_URL"
LEASE = "2"
"""Seconds of lease in the tests: takeovers within a few seconds."""

_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
_REDIS_INDEXES = itertools.cycle(range(1 + _WORKER % 15, 16, min(_WORKERS, 15)))
"""Redis databases 1-15 shared out among pytest-xdist's workers, each worker's in turn: with up
to 15 workers no two flush the same one."""


def services() -> tuple[str, str]:
    """The test PostgreSQL and Redis servers' URLs; the test fails when either is missing."""
    import pytest

    postgres, redis = os.environ.get(POSTGRES_ENV), os.environ.get(REDIS_ENV)
    if not postgres or not redis:
        pytest.fail(f"the cluster tests need PostgreSQL and Redis: set {POSTGRES_ENV} and {REDIS_ENV} "
                    "(eval \"$(scripts/postgres start)\"; eval \"$(scripts/redis start)\")")
    return postgres, redis


async def sql(url: str, statement: str, *args: Any) -> list[Any]:
    """Run one SQL statement on the database at ``url`` (a SQLAlchemy URL); its rows."""
    import asyncpg

    connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        return list(await connection.fetch(statement, *args))
    finally:
        await connection.close()


@contextmanager
def fresh_services() -> Iterator[tuple[str, str]]:
    """A new PostgreSQL database and an emptied Redis database of their own (dropped after)."""
    import redis

    postgres, redis_url = services()
    name = f"kseri_{secrets.token_hex(6)}"
    asyncio.run(sql(postgres, f"CREATE DATABASE {name}"))
    index = next(_REDIS_INDEXES)
    base = redis_url.rsplit("/", 1)[0]
    client = redis.Redis.from_url(f"{base}/{index}")
    client.flushdb()
    client.close()
    try:
        yield postgres.rsplit("/", 1)[0] + "/" + name, f"{base}/{index}"
    finally:
        asyncio.run(sql(postgres, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@dataclass
class Cluster:
    """N ``kseri serve`` processes sharing one database and one Redis."""

    database_url: str
    redis_url: str
    size: int = 3
    options: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    """Environment variables of every process (:meth:`add` may give one its own)."""
    servers: list[Server] = field(default_factory=list)
    retired: list[Server] = field(default_factory=list)
    """Processes that stopped and were replaced (their logs stay readable)."""

    def add(self, env: dict[str, str] | None = None) -> Server:
        """Start one more process (``env``: its environment variables instead of :attr:`env`)."""
        server = Server(self.database_url, {"--redis": self.redis_url, "--lease": LEASE, **self.options},
                        env=self.env if env is None else env)
        self.servers.append(server)
        return server.start()

    def start(self) -> Cluster:
        """Start the processes (at once; none when :attr:`size` is 0)."""
        with ThreadPoolExecutor(max(1, self.size)) as pool:
            list(pool.map(lambda _: self.add(), range(self.size)))
        return self

    def stop(self) -> None:
        """Stop every process still running (resuming stopped ones first)."""
        for server in self.servers:
            if server.process is not None and server.process.poll() is None:
                server.process.send_signal(signal.SIGCONT)
                server.stop()

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def rows(self, statement: str, *args: Any) -> list[Any]:
        """Rows from the cluster's database."""
        return asyncio.run(sql(self.database_url, statement, *args))

    def owner(self, table_id: str) -> Server | None:
        """The process whose lease holds the table now (matched by its log's id line)."""
        rows = self.rows("SELECT owner FROM leases WHERE table_id = $1 AND expires_at > "
                         "extract(epoch from clock_timestamp())", table_id)
        if not rows or rows[0]["owner"] is None:
            return None
        return next((s for s in self.servers if f"process {rows[0]['owner']}" in s.output()), None)

    def plays(self, table_id: str) -> list[tuple[int, int, str]]:
        """The stored plays of a table: (seq, seat, card)."""
        rows = self.rows("SELECT seq, seat, card FROM events WHERE table_id = $1 AND kind = 'play' "
                         "ORDER BY seq", table_id)
        return [(r["seq"], r["seat"], r["card"]) for r in rows]


def two_player_table(cluster: Cluster, owner: int = 0, **options: object) -> tuple[str, str, str]:
    """A two-player table opened on process ``owner``; its second seat taken through another
    process (the request is forwarded to the owner). Returns the id and both tokens."""
    created = cluster.servers[owner].create([human("Ana"), human("Ben")], **options)
    table_id = created["table"]["id"]
    other = cluster.servers[(owner + 1) % len(cluster.servers)]
    joined = other.join(table_id, name="Ben")
    assert joined["seat"] == 1
    return table_id, created["token"], joined["token"]


async def spectated(cluster: Cluster, table_id: str) -> list[Json]:
    """The whole history of a finished table, from seq 1, as a spectator on the last process
    sees it."""
    watcher = await Client.connect(cluster.servers[-1], table_id, since=0)
    final = await watcher.play_until(finished)
    await watcher.close()
    assert final["seq"] == watcher.states[-1]["seq"]
    return watcher.states


class Seat(Client):
    """A seat's client that takes in stride a ``not-playing`` refusal (after a reconnection it
    acts on each missed state in turn, and a ``ready`` for a deal already made is refused) and
    a ``server-error`` one (the owner could not store the play and changed nothing: it is sent
    again after the reconnection that follows)."""

    async def receive(self, timeout: float = 20) -> Json:
        while True:
            message = await super().receive(timeout)
            if message["type"] != "error" or message["code"] not in ("not-playing", "server-error"):
                return message


class Player:
    """A seat's client that reconnects (to the next live process, with ``since``) whenever its
    connection closes, as the web client does; keeps every message it received across
    connections for the audit. ``via``: always connect through this address instead (a load
    balancer's: anything with ``ws(table_id)`` as :class:`Server` has)."""

    def __init__(self, cluster: Cluster, table_id: str, token: str | None, first: int,
                 via: Server | None = None) -> None:
        self.cluster, self.table_id, self.token, self.via = cluster, table_id, token, via
        self.index = first
        self.client: Client | None = None
        self.closes: list[tuple[int, str]] = []
        """The close codes and reasons of the connections that ended under it."""

    def live_servers(self) -> list[Server]:
        return [s for s in self.cluster.servers if s.process is not None and s.process.poll() is None]

    async def connect(self, since: int | None = None) -> Client:
        """Connect (retrying on the next process while the table moves)."""
        deadline = time.monotonic() + 30
        while True:
            servers = self.live_servers()
            server = self.via or servers[self.index % len(servers)]
            try:
                fresh = await Seat.connect(server, self.table_id, self.token, since=since)
            except (OSError, websockets.ConnectionClosed, AssertionError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                self.index += 1
                await asyncio.sleep(0.2)
                continue
            old = self.client
            if old is not None:  # one history across connections; a play not answered is sent again
                fresh.received[:0] = old.received
                fresh.states[:0] = old.states
                fresh._played = old._played - {old._last_play}
                fresh._readied = {k for k in old._readied if not old.states
                                  or k[0] != old.states[-1]["fairness"]["round"]}
            self.client = fresh
            return fresh

    async def play_until(self, stop: Callable[[Json], bool], timeout: float = 120,
                         choose: Callable[[Json], str] = first_card) -> Json:
        """Play until a state satisfies ``stop``, reconnecting whenever the connection closes."""
        deadline = time.monotonic() + timeout
        if self.client is None:
            await self.connect()
        while True:
            assert self.client is not None
            try:
                left = max(1.0, deadline - time.monotonic())
                return await self.client.play_until(stop, choose, timeout=left)
            except websockets.ConnectionClosed as closed:
                self.closes.append((closed.rcvd.code if closed.rcvd else 1006,
                                    closed.rcvd.reason if closed.rcvd else ""))
                self.index += 1
                since = self.client.states[-1]["seq"] if self.client.states else None
                await self.connect(since)


def verified_record(server: Server, table_id: str) -> Json:
    """The finished table's record, which must replay and verify."""
    from kseri.records import replay_record, verify_record

    record: Json = httpx.get(f"{server.http}/api/tables/{table_id}/record", timeout=20).json()
    assert replay_record(record) == [] and verify_record(record) == [], record
    return record


def acknowledged(clients: list[Client]) -> list[tuple[int, int, str]]:
    """The plays the clients were told of, each once, in order."""
    seen: dict[int, tuple[int, int, str]] = {}
    for client in clients:
        for state in client.states:
            event = state["event"]
            if event and event["kind"] == "play":
                play = (state["seq"], event["seat"], event["card"])
                assert seen.setdefault(state["seq"], play) == play, "two plays told for one seq"
    return [seen[seq] for seq in sorted(seen)]


async def both(players: list[Player], stop: Callable[[Json], bool]) -> list[Json]:
    """Every player plays until a state satisfies ``stop``."""
    return list(await asyncio.gather(*(player.play_until(stop) for player in players)))

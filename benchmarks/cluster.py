"""The server as a cluster (docs/server.md, Cluster) on this machine: PostgreSQL, Redis and
1, 2 or 3 ``kseri serve --redis`` processes; scripted players as in ``benchmarks/server.py``,
each table's two players connected to different processes whenever there are two or more.

Prints, side by side with one process without Redis on the same PostgreSQL (the baseline):
plays per second, the median and 99th percentile of a play's round trip, and the servers' CPU
per play (every process together: the cluster path's overhead per play is the difference).
Then, with three processes: the takeover time after kill -9 of a busy table's owner (from the
kill to the table's next state at its players, who reconnect; median and max over ``--kills``),
and what a rolling SIGTERM restart of every process adds to a game (per game, the time from
each SIGTERM to its next state, summed over the three restarts; median and max).

    eval "$(scripts/postgres start)"; eval "$(scripts/redis start)"
    PYTHONPATH=src python benchmarks/cluster.py --tables 30 --seconds 15 --kills 5
    PYTHONPATH=src python benchmarks/cluster.py --tables 30 --seconds 10 --protocol 1 2 --rounds 3

With ``--protocol 1 2`` it measures only the relaying: one process without Redis and a cluster
of three, the players speaking protocol v1 and then v2 in alternated runs, each run's figures
and the medians side by side (no kills).

The services come from ``KSERI_TEST_POSTGRES_URL`` and ``KSERI_TEST_REDIS_URL`` (or
``--postgres`` and ``--redis``); each run gets a fresh database and Redis database.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx
import websockets

from server import CERTIFICATES, Held, Stats, cpu_seconds, honest_address, read_message

LIMITS = ("tables_per_minute=1000000,tables_burst=1000000,connections_per_address=1000000,"
          "max_backlog=100000,send_queue=100001")
LEASE = 2.0
"""Seconds of lease (the takeover time follows it)."""


@dataclass
class Process:
    """One ``kseri serve`` on a loopback port."""

    database: str
    redis: str | None
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Process:
        args = [sys.executable, "-m", "kseri", "serve", "--port", str(self.port), "--db", self.database,
                "--bot-delay", "0", "--limits", LIMITS]
        if self.redis is not None:
            args += ["--redis", self.redis, "--lease", str(LEASE)]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise SystemExit(f"kseri serve on port {self.port} did not start")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        if self.alive():
            assert self.process is not None
            self.process.send_signal(how)
            self.process.wait(60)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _sql(url: str, statement: str) -> list[dict[str, object]]:
    import asyncpg

    connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        return [dict(row) for row in await connection.fetch(statement)]
    finally:
        await connection.close()


def fresh_services(postgres: str, redis_url: str | None) -> tuple[str, str | None]:
    """A new database and (given Redis) an emptied Redis database."""
    name = f"kseri_bench_{secrets.token_hex(4)}"
    asyncio.run(_sql(postgres, f"CREATE DATABASE {name}"))
    database = postgres.rsplit("/", 1)[0] + "/" + name
    if redis_url is None:
        return database, None
    import redis

    base = redis_url.rsplit("/", 1)[0]
    index = 1 + secrets.randbelow(15)
    client = redis.Redis.from_url(f"{base}/{index}")
    client.flushdb()
    client.close()
    return database, f"{base}/{index}"


def drop(postgres: str, servers: list[Process]) -> None:
    """Stop the processes and drop their database."""
    for process in servers:
        process.stop()
    name = servers[0].database.rsplit("/", 1)[1]
    asyncio.run(_sql(postgres, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@dataclass
class Table:
    """A match's progress as its players see it."""

    arrivals: list[tuple[float, int]] = field(default_factory=list)
    """(time, seq) of each state either player received."""
    finished: bool = False

    def next_state_after(self, moment: float) -> float | None:
        """Seconds from ``moment`` to the first state with a seq beyond those seen before it."""
        before = max((seq for at, seq in self.arrivals if at <= moment), default=0)
        later = [at for at, seq in self.arrivals if at > moment and seq > before]
        return min(later) - moment if later else None


async def seat(servers: Callable[[], list[Process]], first: int, table_id: str, token: str,
               stats: Stats, stop: float, table: Table, protocol: int = 1) -> None:
    """Play a seat over ``protocol`` as fast as the table allows, reconnecting (to the next
    live process, with ``since``) whenever the connection closes, until the match ends or
    ``stop``."""
    index, since, readied, source = first, None, -1, honest_address()
    while not table.finished and time.perf_counter() < stop:
        live = [p for p in servers() if p.alive()] or servers()
        url = live[index % len(live)].url.replace("http", "ws", 1)
        sent_at, held = 0.0, Held()
        try:
            async with websockets.connect(f"{url}/ws/tables/{table_id}", max_size=None, ping_interval=None,
                                          compression=None, local_addr=(source, 0), open_timeout=10) as ws:
                hello = {"type": "hello", "protocol": protocol, "token": token, "since": since}
                await ws.send(json.dumps(hello))
                number = None
                while True:
                    try:  # a table that stalls must not outlast the run
                        text = await asyncio.wait_for(ws.recv(), max(0.1, stop - time.perf_counter()))
                    except TimeoutError:
                        return
                    message = read_message(text)
                    if message.type == "welcome":
                        number = message.seat
                        continue
                    if message.type == "error":
                        if message.code != "stale" or since is None:
                            continue
                        sent_at = 0.0  # acted on an old state: act on the latest
                    elif message.type in ("state", "delta"):
                        held.take(message)
                        table.arrivals.append((time.perf_counter(), message.seq))
                        since = message.seq
                        event = message.event
                        if sent_at and event and event.kind == "play" and event.seat == number:
                            stats.latencies.append(time.perf_counter() - sent_at)
                            sent_at = 0.0
                    else:
                        continue
                    if held.table is None or held.fairness is None:
                        continue
                    if held.table.status == "finished":
                        table.finished = True
                        return
                    if time.perf_counter() > stop:
                        return
                    view = held.view
                    if view is None or view.phase == "round-over":
                        if held.fairness.round != readied:
                            readied = held.fairness.round
                            await ws.send(json.dumps({"type": "ready"}))
                    elif view.turn == number and not sent_at:
                        sent_at = time.perf_counter()
                        await ws.send(json.dumps({"type": "play", "card": view.hand[0], "seq": since}))
        except (OSError, TimeoutError, websockets.ConnectionClosed, websockets.InvalidHandshake):
            # a process killed a moment ago, or refusing while it hands its tables over
            pass
        index += 1
        readied = -1
        await asyncio.sleep(0.05)


async def open_table(servers: list[Process], number: int) -> tuple[str, str, str]:
    """A table opened on one process and joined through the next."""
    deadline = time.monotonic() + 60
    while True:
        live = [p for p in servers if p.alive()]
        try:
            async with httpx.AsyncClient(timeout=30, verify=CERTIFICATES) as client:
                owner, other = live[number % len(live)], live[(number + 1) % len(live)]
                body = {"rules": "greek", "public": False}
                created = await client.post(f"{owner.url}/api/tables", json=body)
                table_id = created.json()["table"]["id"]
                joined = await client.post(f"{other.url}/api/tables/{table_id}/join", json={})
                if created.status_code == 201 and joined.status_code == 200:
                    return table_id, created.json()["token"], joined.json()["token"]
        except (httpx.HTTPError, KeyError):
            pass
        if time.monotonic() > deadline:
            raise SystemExit("no table could be opened")
        await asyncio.sleep(0.2)


async def lane(servers: list[Process], number: int, stats: Stats, stop: float, tables: list[Table],
               protocol: int = 1) -> None:
    """Matches one after another until ``stop``, each player on a different process."""
    game = 0
    while time.perf_counter() < stop:
        table_id, first, second = await open_table(servers, number + game)
        table = Table()
        tables.append(table)
        await asyncio.gather(
            seat(lambda: servers, number + game, table_id, first, stats, stop, table, protocol),
            seat(lambda: servers, number + game + 1, table_id, second, stats, stop, table, protocol))
        game += 1


async def load(servers: list[Process], tables: int, seconds: float,
               during: Callable[[list[Table]], Awaitable[None]] | None = None, protocol: int = 1
               ) -> tuple[float, float, float, float, list[Table]]:
    """Plays/s, median and p99 ms, server CPU ms per play (all processes), and the tables; the
    players speak ``protocol``."""
    stats, played = Stats(), list[Table]()
    cpu = sum(cpu_seconds(p.process.pid if p.process else None) for p in servers)
    start = time.perf_counter()
    lanes = asyncio.gather(*(lane(servers, n * 7, stats, start + seconds, played, protocol)
                             for n in range(tables)))
    if during is not None:
        await during(played)
    await lanes
    cpu = sum(cpu_seconds(p.process.pid if p.process else None) for p in servers) - cpu
    rate, median, p99 = stats.summary(time.perf_counter() - start)
    return rate, median, p99, cpu * 1000 / max(1, len(stats.latencies)), played


def cluster(postgres: str, redis_url: str | None, size: int) -> list[Process]:
    """``size`` processes on a fresh database (and Redis database: a cluster)."""
    database, redis_db = fresh_services(postgres, redis_url)
    return [Process(database, redis_db, free_port()).start() for _ in range(size)]


def main() -> None:
    gc.disable()  # as in server.py: the load generator's own pauses are not the servers'
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=30, help="concurrent tables")
    parser.add_argument("--seconds", type=float, default=15, help="length of each loaded run")
    parser.add_argument("--kills", type=int, default=5, help="kill -9s for the takeover time")
    parser.add_argument("--postgres", default=os.environ.get("KSERI_TEST_POSTGRES_URL"))
    parser.add_argument("--redis", default=os.environ.get("KSERI_TEST_REDIS_URL"))
    parser.add_argument("--protocol", type=int, nargs="+", choices=(1, 2), default=[1],
                        help="the players' protocol(s); several: only the relaying, alternated runs")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternated runs of each protocol (with --protocol 1 2)")
    args = parser.parse_args()
    if not args.postgres or not args.redis:
        raise SystemExit("give --postgres and --redis (or KSERI_TEST_POSTGRES_URL and KSERI_TEST_REDIS_URL)")
    if len(args.protocol) > 1:
        compare_protocols(args.postgres, args.redis, args.tables, args.seconds, args.protocol, args.rounds)
        return
    print(f"kseri cluster on one machine ({os.cpu_count()} cores): PostgreSQL, Redis, clients on the same "
          f"machine; {args.tables} tables, {args.seconds:g} s each")
    print(f"{'':>22} {'plays/s':>8} {'median ms':>10} {'p99 ms':>8} {'CPU ms/play':>12} {'overhead':>9}",
          flush=True)
    base_cpu = None
    for label, redis_url, size in (("1 process, no Redis", None, 1), ("cluster, 1 process", args.redis, 1),
                                   ("cluster, 2 processes", args.redis, 2),
                                   ("cluster, 3 processes", args.redis, 3)):
        servers = cluster(args.postgres, redis_url, size)
        try:
            rate, median, p99, cpu = asyncio.run(load(servers, args.tables, args.seconds))[:4]
        finally:
            drop(args.postgres, servers)
        base_cpu = cpu if base_cpu is None else base_cpu
        print(f"{label:>22} {rate:8.0f} {median:10.1f} {p99:8.1f} {cpu:12.2f} {cpu - base_cpu:+9.2f}",
              flush=True)

    servers = cluster(args.postgres, args.redis, 3)
    takeovers: list[float] = []

    async def kill_owners(tables: list[Table]) -> None:
        for _ in range(args.kills):
            await asyncio.sleep(2.0)
            index = secrets.randbelow(3)
            moment = time.perf_counter()
            watched = [t for t in tables if not t.finished]
            await asyncio.to_thread(servers[index].stop, signal.SIGKILL)
            await asyncio.sleep(3 * LEASE)
            gaps = [gap for t in watched if (gap := t.next_state_after(moment)) is not None]
            takeovers.append(max(gaps, default=float("nan")))  # the slowest of the killed one's tables
            await asyncio.to_thread(servers[index].start)

    restarts: list[float] = []

    async def rolling(tables: list[Table]) -> None:
        await asyncio.sleep(2.0)
        moments = []
        for process in servers:
            moments.append(time.perf_counter())
            await asyncio.to_thread(process.stop, signal.SIGTERM)
            await asyncio.to_thread(process.start)
        await asyncio.sleep(2 * LEASE)
        for table in tables:
            gaps = [table.next_state_after(moment) for moment in moments]
            if all(gap is not None for gap in gaps):
                restarts.append(sum(gap for gap in gaps if gap is not None))

    try:
        asyncio.run(load(servers, args.tables, args.kills * 30, kill_owners))
        asyncio.run(load(servers, args.tables, 120, rolling))
    finally:
        drop(args.postgres, servers)

    valid = [t for t in takeovers if t == t]
    if valid:
        print(f"takeover after kill -9 (kill to next state, {len(valid)} kills): median "
              f"{statistics.median(valid):.2f} s, max {max(valid):.2f} s (lease {LEASE:g} s)")
    if restarts:
        print(f"rolling SIGTERM restart of 3 processes adds to a game ({len(restarts)} games): median "
              f"{statistics.median(restarts):.2f} s, max {max(restarts):.2f} s")


def compare_protocols(postgres: str, redis_url: str, tables: int, seconds: float, protocols: list[int],
                      rounds: int) -> None:
    """One process without Redis and a cluster of three, each protocol in alternated runs:
    each run's figures, then the medians and the cluster's overhead per play over one process."""
    setups = (("1 process, no Redis", None, 1), ("cluster, 3 processes", redis_url, 3))
    runs: dict[tuple[str, int], list[tuple[float, float, float, float]]] = {}
    for _ in range(rounds):
        for protocol in protocols:
            for label, redis_db, size in setups:
                servers = cluster(postgres, redis_db, size)
                try:
                    figures = asyncio.run(load(servers, tables, seconds, protocol=protocol))[:4]
                finally:
                    drop(postgres, servers)
                runs.setdefault((label, protocol), []).append(figures)
    print(f"kseri cluster on one machine ({os.cpu_count()} cores): PostgreSQL, Redis, clients on the same "
          f"machine; {tables} tables, {rounds} alternated runs of {seconds:g} s per protocol")
    print(f"{'':>26} {'plays/s':>8} {'median ms':>10} {'p99 ms':>8} {'CPU ms/play':>12}")
    for (label, protocol), measured in runs.items():
        for number, (rate, median, p99, cpu) in enumerate(measured, 1):
            print(f"{f'{label} v{protocol} #{number}':>26} {rate:8.0f} {median:10.1f} {p99:8.1f} {cpu:12.2f}")
    for protocol in protocols:
        medians = {label: [statistics.median(run[column] for run in runs[(label, protocol)])
                           for column in range(4)] for label, _, _ in setups}
        for label, (rate, median, p99, cpu) in medians.items():
            print(f"{f'{label} v{protocol} median':>26} {rate:8.0f} {median:10.1f} {p99:8.1f} {cpu:12.2f}")
        single, relayed = (medians[label][3] for label, _, _ in setups)
        print(f"{f'v{protocol}: the cluster of 3':>26} costs {relayed - single:+.2f} ms a play over one "
              f"process (x{relayed / single:.2f})")


if __name__ == "__main__":
    main()

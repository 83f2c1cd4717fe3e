"""What a load balancer and an operator ask of a running server: is the process alive
(``GET /healthz``), should it get traffic (``GET /readyz``: its database answers; in a
cluster, Redis answers and the process is not draining), and how is it doing (``GET /metrics``,
Prometheus' text format, through the maintained ``prometheus-client`` library): live tables,
open connections, plays stored, the time of each commit, and tables taken over from another
process of a cluster. The routes are in ``server/api/ops.py``.

Each application has its own :class:`Metrics` registry (several servers in one test process do
not share counters); the figures are this process's alone: Prometheus adds a cluster's up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from redis.asyncio import Redis
from sqlalchemy import text

from kseri.server import db

COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
"""The commit-time histogram's bounds, in seconds (an SQLite or PostgreSQL commit on a local
disk takes about a millisecond; a struggling one, hundreds)."""

CHECK_TIMEOUT = 2.0
"""Seconds a readiness check may take before it counts as failed."""

ReadinessCheck = Callable[[], Awaitable[str | None]]
"""One readiness check: ``None`` when it passes, else why not, in one sentence."""


class Metrics:
    """The server's Prometheus metrics (``kseri_*``) in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.live_tables = Gauge("kseri_live_tables", "Tables held in this process's memory: in play, "
                                 "waiting for players, or finished and still watched.",
                                 registry=self.registry)
        self.tables_in_play = Gauge("kseri_tables_in_play", "Tables in play or waiting for players on "
                                    "every process (this one's, and a cluster's others' as they last "
                                    "told): what max_live_tables caps.", registry=self.registry)
        self.connections = Gauge("kseri_connections", "Open WebSocket connections to this process.",
                                 registry=self.registry)
        self.plays = Counter("kseri_plays", "Plays stored (people's, bots' and stand-ins'); its rate is "
                             "plays per second.", registry=self.registry)
        self.commit_seconds = Histogram("kseri_commit_seconds", "Time of one database commit of the "
                                        "writer (a group commit of whatever was queued).",
                                        buckets=COMMIT_BUCKETS, registry=self.registry)
        self.takeovers = Counter("kseri_takeovers", "Tables this process took over from another process "
                                 "of its cluster (whose lease ran out).", registry=self.registry)
        self.http_refused = Counter("kseri_http_refused", "HTTP connections refused below the application "
                                    "(server/guard.py), by reason: per-address (the address held its "
                                    "ceiling) or header-timeout (a request's headers came too slowly).",
                                    ["reason"], registry=self.registry)
        for reason in ("per-address", "header-timeout"):
            self.http_refused.labels(reason)  # shown from the start, at zero
        self.accept_failures = Counter("kseri_accept_failures", "Connections the process could not accept "
                                       "(out of descriptors).", registry=self.registry)
        self.descriptors_exhausted = Counter("kseri_descriptors_exhausted", "Seconds the process spent with "
                                             "almost no free descriptors (new connections refused by "
                                             "the system).", registry=self.registry)
        self.descriptors_open = Gauge("kseri_descriptors_open", "Descriptors the process holds open "
                                      "(connections, files).", registry=self.registry)
        self.descriptor_limit = Gauge("kseri_descriptor_limit", "The process's limit on open descriptors.",
                                      registry=self.registry)
        self._takeovers_total: Callable[[], int] | None = None
        self._takeovers_seen = 0

    def observe_commit(self, batch: db.Batch, seconds: float) -> None:
        """Count one commit of the store (``db.Store.on_commit``): its time and its plays."""
        self.commit_seconds.observe(seconds)
        plays = sum(1 for row in batch.rows.get(db.events.name, ()) if row["kind"] == "play")
        if plays:
            self.plays.inc(plays)

    def count_takeovers(self, total: Callable[[], int]) -> None:
        """Let :attr:`takeovers` follow a count kept elsewhere (a cluster's leases)."""
        self._takeovers_total = total

    def text(self) -> bytes:
        """Every metric in Prometheus' text format."""
        if self._takeovers_total is not None:
            total = self._takeovers_total()
            if total > self._takeovers_seen:
                self.takeovers.inc(total - self._takeovers_seen)
                self._takeovers_seen = total
        return generate_latest(self.registry)


class Health:
    """Readiness: a list of checks any part of the server may add to (the database's is
    there from the start; a cluster adds its own: Redis answers, the process is not draining)."""

    def __init__(self) -> None:
        self.checks: list[ReadinessCheck] = []

    async def problems(self) -> list[str]:
        """Why the process should get no traffic now (empty: it is ready); the checks run
        together, each bounded by :data:`CHECK_TIMEOUT`."""

        async def bounded(check: ReadinessCheck) -> str | None:
            try:
                async with asyncio.timeout(CHECK_TIMEOUT):
                    return await check()
            except TimeoutError:
                name = getattr(check, "__name__", "check")
                return f"a readiness check ({name}) took over {CHECK_TIMEOUT:g} s"

        return [problem for problem in await asyncio.gather(*map(bounded, self.checks)) if problem]


def database_check(store: db.Store) -> ReadinessCheck:
    """A readiness check that the database answers a query."""

    async def database_reachable() -> str | None:
        if store.hold_lost is not None:
            return store.hold_lost
        try:
            async with store.engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except Exception as error:
            return f"the database does not answer: {type(error).__name__}"
        return None

    return database_reachable


def cluster_check(draining: Callable[[], bool], redis: Redis) -> ReadinessCheck:
    """A cluster's readiness check: the process is not draining, and Redis answers."""

    async def cluster_ready() -> str | None:
        if draining():
            return "the process is draining: its tables are moving to the others"
        try:
            await redis.ping()
        except Exception as error:
            return f"Redis does not answer: {type(error).__name__}"
        return None

    return cluster_ready

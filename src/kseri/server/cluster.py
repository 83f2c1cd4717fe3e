"""Many ``kseri serve`` processes as one game world: table leases with fencing numbers.

In a cluster (``--redis``, on a shared PostgreSQL database) each live table is owned by one
process at a time through a row of ``leases``: the owner's id, a fencing number that grows by
one at each change of owner, and an expiry the owner pushes forward every third of
``settings.lease`` seconds. Every commit of a table's events checks, in its own transaction,
that the lease still has this process's fencing number (:meth:`Leases.guard`), so an owner that
hung past its lease and wakes up can never write: its commit is refused and it drops the table
at once. A table whose owner died, hung or lost its database is taken over (fence + 1) by the
first process that needs it, or by any process's sweep of expired leases, which restores it by
replaying its event log. The turn's start is stored with the lease, so clocks survive a
takeover. Frames of connections on other processes reach the owner through Redis
(``server/relay.py``).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass

from sqlalchemy import BigInteger, Column, Float, String, Table, delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from kseri.server import db
from kseri.server.room import GameTable

log = logging.getLogger("kseri.server")

leases = Table(
    "leases", db.metadata,
    Column("table_id", String(40), primary_key=True),
    Column("owner", String(40), nullable=True, index=True),
    Column("fence", BigInteger, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("turn_started", Float, nullable=True),
)

NOW = func.extract("epoch", func.clock_timestamp())
"""The database server's clock (UNIX seconds): the one clock every process's lease is measured by."""

RECONNECT = "the table moved to another server process; reconnect"
"""The reason given with close code 1012 to connections of a table this process let go."""
HANDING_OVER = "the server process is restarting; reconnect"
"""The reason given with close code 1012 to the connections of the tables a process hands over
as it stops (SIGTERM)."""
TRY_AGAIN_LATER = 1013
"""The WebSocket close code for a connection this process cannot serve for now (its database,
or the cluster's Redis, is out of reach); the client reconnects after a while, here or elsewhere."""


class RedisUnavailable(db.DatabaseUnavailable):
    """The cluster's Redis cannot be reached; the message says why."""


async def check_redis(url: str) -> None:
    """Raise :class:`RedisUnavailable` unless the Redis at ``url`` answers."""
    from redis.asyncio import Redis

    client = Redis.from_url(url)
    try:
        await client.ping()
    except Exception as error:
        raise RedisUnavailable(f"cannot reach the cluster's Redis {url}: {error}") from None
    finally:
        await client.aclose()


class Elsewhere(Exception):
    """The table is owned by another live process (``owner``; ``None``: by nobody this
    process may serve it from now, e.g. it is draining); connections to it are relayed."""

    def __init__(self, owner: str | None) -> None:
        super().__init__(f"the table is owned by process {owner}")
        self.owner = owner


@dataclass(slots=True)
class Lease:
    """A table this process owns: its fencing number and the start of its turn."""

    table_id: str
    fence: int
    turn_seq: int = -1
    turn_since: float | None = None
    """When (``time.monotonic()``) the turn (or the wait between rounds) began, from its start as
    stored on the database's clock (``None``: unknown; it begins when the table starts here)."""


class Leases:
    """This process's leases in the shared database."""

    def __init__(self, store: db.Store, seconds: float, me: str | None = None) -> None:
        self.store = store
        self.seconds = seconds
        self.me = me or secrets.token_hex(6)
        """This process's id in the cluster (its Redis channel is named after it)."""
        self.owned: dict[str, Lease] = {}
        self.takeovers = 0
        """Tables taken over from a process whose lease had expired (it died, hung or lost
        its database)."""
        self.handovers = 0
        """Tables taken from a process that let them go (it drained on SIGTERM)."""
        self.last_renewed = time.monotonic()

    async def acquire(self, table_id: str, gone: str | None = None) -> Lease | None:
        """Take the table's lease (``None``: there is no such table); raises :class:`Elsewhere`
        when another process holds it and has not let it expire, unless that process is
        ``gone`` (it no longer listens on Redis: it died; were it alive after all, the fence
        refuses its next commit)."""
        async with self.store.engine.begin() as connection:
            exists = await connection.scalar(select(db.tables.c.id).where(db.tables.c.id == table_id))
            if exists is None:
                return None
            row = (await connection.execute(
                select(leases.c.owner, leases.c.fence, (leases.c.expires_at < NOW).label("expired"),
                       (NOW - leases.c.turn_started).label("turn_age"))
                .where(leases.c.table_id == table_id).with_for_update())).first()
            if row is None:
                added = await connection.execute(
                    insert(leases).values(table_id=table_id, owner=self.me, fence=1,
                                          expires_at=NOW + self.seconds)
                    .on_conflict_do_nothing().returning(leases.c.fence))
                fence = added.scalar()
                if fence is None:
                    raise Elsewhere(None)  # another process inserted it a moment ago
                lease = Lease(table_id, fence)
            else:
                if row.owner is not None and row.owner not in (self.me, gone) and not row.expired:
                    raise Elsewhere(row.owner)
                fence = row.fence + 1
                await connection.execute(update(leases).where(leases.c.table_id == table_id).values(
                    owner=self.me, fence=fence, expires_at=NOW + self.seconds))
                if row.owner is None:
                    self.handovers += 1
                elif row.owner != self.me:
                    self.takeovers += 1
                    log.warning("took table %s over from process %s (fence %d)", table_id, row.owner, fence)
                age = None if row.turn_age is None else max(0.0, float(row.turn_age))
                lease = Lease(table_id, fence, turn_since=None if age is None else time.monotonic() - age)
        self.owned[table_id] = lease
        return lease

    async def create(self, table_id: str) -> Lease:
        """The lease of a new table (before its first write)."""
        async with self.store.engine.begin() as connection:
            await connection.execute(insert(leases).values(
                table_id=table_id, owner=self.me, fence=1, expires_at=NOW + self.seconds))
        lease = self.owned[table_id] = Lease(table_id, 1)
        return lease

    async def renew(self) -> set[str]:
        """Push every lease this process holds forward; returns the tables it no longer holds
        (another process took them, or the renewal failed for longer than a lease)."""
        if time.monotonic() - self.last_renewed > self.seconds:  # it hung: the leases may be gone
            self.last_renewed = time.monotonic()
            return set(self.owned)
        started = time.monotonic()
        try:
            held = {}
            if self.owned:
                async with self.store.engine.begin() as connection:
                    mine = (leases.c.owner == self.me) & leases.c.table_id.in_(list(self.owned))
                    await _lock_in_order(connection, mine)
                    rows = await connection.execute(update(leases).where(mine).values(
                        expires_at=NOW + self.seconds).returning(leases.c.table_id, leases.c.fence))
                    held = {row.table_id: row.fence for row in rows}
        except Exception:
            log.exception("could not renew the leases")
            return set(self.owned) if time.monotonic() - self.last_renewed > self.seconds else set()
        self.last_renewed = started
        return {table_id for table_id, lease in self.owned.items() if held.get(table_id) != lease.fence}

    async def release(self, table_ids: list[str]) -> None:
        """Let tables go at once (another process may take them without waiting)."""
        for table_id in table_ids:
            self.owned.pop(table_id, None)
        if not table_ids:
            return
        async with self.store.engine.begin() as connection:
            mine = (leases.c.owner == self.me) & leases.c.table_id.in_(table_ids)
            await _lock_in_order(connection, mine)
            await connection.execute(update(leases).where(mine).values(owner=None))

    async def forget(self, table_id: str) -> None:
        """Remove a deleted table's lease."""
        self.owned.pop(table_id, None)
        async with self.store.engine.begin() as connection:
            await connection.execute(delete(leases).where(leases.c.table_id == table_id))

    async def orphans(self, limit: int = 16) -> list[str]:
        """Unfinished tables no live process holds (never leased, let go, or expired)."""
        query = (select(db.tables.c.id).outerjoin(leases, leases.c.table_id == db.tables.c.id)
                 .where(db.tables.c.finished.is_(False),
                        or_(leases.c.table_id.is_(None), leases.c.owner.is_(None), leases.c.expires_at < NOW))
                 .order_by(func.random()).limit(limit))
        async with self.store.engine.connect() as connection:
            return [row[0] for row in await connection.execute(query)]

    async def holders(self) -> list[str]:
        """The other processes holding leases that have not expired."""
        query = select(leases.c.owner).distinct().where(
            leases.c.owner.is_not(None), leases.c.owner != self.me, leases.c.expires_at >= NOW)
        async with self.store.engine.connect() as connection:
            return [row[0] for row in await connection.execute(query)]

    async def held_by(self, owner: str, limit: int = 16) -> list[str]:
        """Some unfinished tables whose lease ``owner`` holds."""
        query = (select(leases.c.table_id).join(db.tables, db.tables.c.id == leases.c.table_id)
                 .where(leases.c.owner == owner, db.tables.c.finished.is_(False)).limit(limit))
        async with self.store.engine.connect() as connection:
            return [row[0] for row in await connection.execute(query)]

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        """Who holds each of these tables now (``None``: nobody, or a lease expired)."""
        if not table_ids:
            return {}
        query = select(leases.c.table_id, leases.c.owner, (leases.c.expires_at < NOW).label("expired")) \
            .where(leases.c.table_id.in_(table_ids))
        async with self.store.engine.connect() as connection:
            rows = await connection.execute(query)
            return {row.table_id: None if row.expired else row.owner for row in rows}


class Fenced:
    """A table's commits fenced by this process's lease on it (the table's
    :class:`~kseri.server.room.Fence`): a commit after another process took the table over is
    refused, and the table is ``lost``. The turn's start is stored with the lease on the
    database's clock (the database's now less the turn's age by this process's monotonic
    clock), so a process that takes the table over counts the turn by the same clock, whatever
    its machine's clock says."""

    def __init__(self, leases: Leases, lease: Lease, lost: Callable[[GameTable], None]) -> None:
        self.leases, self.lease, self._lost = leases, lease, lost

    def turn_began(self, table: GameTable) -> float | None:
        """When the table's turn began by the lease (``None``: it begins now)."""
        lease = self.lease
        lease.turn_seq = table.state.turn_seq
        if lease.turn_since is None:
            lease.turn_since = time.monotonic()
            return None
        return lease.turn_since  # as long ago as stored

    def seal(self, table: GameTable, batch: db.Batch) -> None:
        """Check the lease's fencing number in the batch's transaction (and store the turn's start)."""
        lease, book = self.lease, self.leases
        held = book.owned.get(table.id)
        number = held.fence if held is lease else -1
        if table.state.turn_seq != lease.turn_seq:
            lease.turn_seq, lease.turn_since = table.state.turn_seq, time.monotonic()
        age = 0.0 if lease.turn_since is None else time.monotonic() - lease.turn_since
        batch.checks.append((table.id, update(leases).where(
            leases.c.table_id == table.id, leases.c.owner == book.me, leases.c.fence == number,
        ).values(turn_started=NOW - age)))

    def lost(self, table: GameTable) -> None:
        """Another process took the table: let it go."""
        self._lost(table)


async def _lock_in_order(connection: AsyncConnection, which: ColumnElement[bool]) -> None:
    """Lock these leases' rows in the order commits lock them (``db.Batch.checks``, by table
    id), so that a renewal and a commit never wait for each other in a circle."""
    await connection.execute(select(leases.c.table_id).where(which).order_by(leases.c.table_id)
                             .with_for_update())


class Cluster:
    """This process's part in the cluster: its leases, the loop that renews them and sweeps up
    orphaned tables, and the takeover counters."""

    def __init__(self, leases: Leases, live: dict[str, GameTable],
                 claim: Callable[[str], Awaitable[object]]) -> None:
        self.leases = leases
        self.live = live
        self.claim = claim
        """Loads (taking its lease) a table no process holds."""
        self.draining = False
        self.on_tick: list[Callable[[], Awaitable[None]]] = []
        """Run at each renewal (the relay's checks of its links)."""
        self.on_sweep: list[Callable[[], Awaitable[None]]] = []
        """Run in each sweep (the relay's takeover of the tables of processes that died)."""
        self._task: asyncio.Task[None] | None = None
        self._sweeping: asyncio.Task[None] | None = None

    @property
    def me(self) -> str:
        """This process's id."""
        return self.leases.me

    @property
    def takeovers(self) -> int:
        """Tables this process took over from a process that died or hung (a metric)."""
        return self.leases.takeovers

    def start(self) -> None:
        """Begin renewing leases and sweeping orphaned tables."""
        self._task = asyncio.create_task(self._forever())

    async def stop(self) -> None:
        """Stop the renewals and sweeps."""
        for task in (self._task, self._sweeping):
            if task is not None:
                task.cancel()
                with suppress(asyncio.CancelledError):
                    await task

    def lose(self, table: GameTable, reason: str = RECONNECT) -> None:
        """Forget a table this process may no longer serve: stop it, drop it from memory (unless
        a newer copy of it is there), close its connections (local and relayed) asking them to
        reconnect."""
        if self.live.get(table.id) is table:
            del self.live[table.id]
            self.leases.owned.pop(table.id, None)
        table.stop(reason)
        log.warning("let go of table %s: %s", table.id, reason)

    async def drain(self) -> None:
        """Hand every table over at once (SIGTERM): stop them, close their connections with
        the reconnect hint, release their leases."""
        self.draining = True
        owned = list(self.leases.owned)
        tables = [self.live.pop(table_id) for table_id in owned if table_id in self.live]
        for table in tables:  # first: a commit refused by the release below answers nobody
            table.stop(HANDING_OVER)
        try:
            await self.leases.release(owned)
        except Exception:
            log.exception("could not release the leases; they expire in %g s", self.leases.seconds)

    async def _forever(self) -> None:
        ticks = 0
        while True:
            await asyncio.sleep(self.leases.seconds / 3)
            if self.draining:
                continue
            for table_id in await self.leases.renew():
                self.leases.owned.pop(table_id, None)
                table = self.live.get(table_id)
                if table is not None:
                    self.lose(table, "this process lost the table's lease (it ran out, or its fence "
                                     "moved on); reconnect")
            for hook in self.on_tick:
                try:
                    await hook()
                except Exception:
                    log.exception("a cluster check failed")
            ticks += 1
            if self._sweeping is None or self._sweeping.done():
                self._sweeping = asyncio.create_task(self._sweep(orphans=not ticks % 2))

    async def _sweep(self, orphans: bool) -> None:
        """Take over the tables of processes that died (:attr:`on_sweep`) and, if ``orphans``,
        tables nobody holds: in a task of its own, one sweep at a time, so that loading tables
        (slow under load, or waiting on a lock) never holds up the renewals and checks."""
        for hook in self.on_sweep:
            try:
                await hook()
            except Exception:
                log.exception("could not take over the tables of a process that died")
        if not orphans:
            return
        try:
            for table_id in await self.leases.orphans():
                if table_id not in self.live and not self.draining:
                    with suppress(Elsewhere):
                        await self.claim(table_id)
        except Exception:
            log.exception("could not sweep up orphaned tables")

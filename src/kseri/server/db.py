"""Durable tables: SQLAlchemy 2 (async) on SQLite or PostgreSQL, migrated by Alembic.

Each table stores its rules, its seats, each round's fairness secret and its event log. Writes
go through one writer task that commits whatever is queued in one transaction (group commit),
so every accepted play is on disk before anyone hears of it, at a few thousand plays a second.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    delete,
    event,
    select,
    text,
    update,
)
from sqlalchemy.engine import Dialect, Engine, create_engine, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.sql.dml import Delete, Update

HERE = Path(__file__).parent
log = logging.getLogger("kseri.server")

ADVISORY_LOCK = 0x6B7365726901
"""The PostgreSQL advisory lock a single-process server holds on its database."""


class DatabaseUnavailable(Exception):
    """The database cannot serve this process; the message says why, in one sentence."""


class HoldLost(DatabaseUnavailable):
    """A write refused because this process no longer holds the database's lock (its
    connection ended): until it takes the lock again, another ``kseri serve`` might hold it."""


HOLD_CHECK = 1.0
"""Seconds between checks that the connection holding PostgreSQL's advisory lock still lives."""


class FenceLost(Exception):
    """A commit refused because its table's lease (``server/cluster.py``) is no longer this
    process's: another process took the table over, and nothing of the batch was written."""

metadata = MetaData()

tables = Table(
    "tables", metadata,
    Column("id", String(40), primary_key=True),
    Column("created", Float, nullable=False),
    Column("rules", Text, nullable=False),
    Column("casual", Boolean, nullable=False),
    Column("public", Boolean, nullable=False),
    Column("clock", Integer, nullable=True),
    Column("first_dealer", Integer, nullable=False),
    Column("finished", Boolean, nullable=False, index=True),
    Column("rematch_of", String(40), nullable=True),
    Column("rematch", String(40), nullable=True),
    Column("rated", Boolean, nullable=False, default=False),
    Column("deals", String(64), nullable=True),  # a tournament round's deal key (room.py)
)
seats = Table(
    "seats", metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("level", String(40), nullable=True),
    Column("name", String(80), nullable=True),
    Column("token_hash", String(64), nullable=True),
    Column("user_id", String(24), nullable=True, index=True),  # the account holding it (accounts.py)
    Column("guest_id", String(40), nullable=True),  # the guest who took it (guests.py)
)
rounds = Table(
    "rounds", metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("secret", String(64), nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("dealer", Integer, nullable=False),
)
events = Table(
    "events", metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("card", String(4), nullable=True),
    Column("data", Text, nullable=True),
)

_INSERT_ORDER = (tables, seats, rounds, events)


@dataclass(slots=True)
class Batch:
    """Rows to insert and updates to run, committed together or not at all."""

    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    updates: list[Update | Delete] = field(default_factory=list)
    """Updates (and deletions), run after the inserts."""
    checks: list[tuple[str, Update]] = field(default_factory=list)
    """Updates run first, in the order of their keys (rows locked in one order: no deadlock),
    that must each change a row, else nothing is written and the commit raises
    :class:`FenceLost` (a cluster's lease fence, keyed by the table's id)."""

    def insert(self, table: Table, **values: Any) -> None:
        """Queue one row for ``table``."""
        self.rows.setdefault(table.name, []).append(values)

    def extend(self, other: Batch) -> None:
        """Add another batch's writes after this one's."""
        for name, rows in other.rows.items():
            self.rows.setdefault(name, []).extend(rows)
        self.updates.extend(other.updates)
        self.checks.extend(other.checks)


@dataclass(frozen=True, slots=True)
class StoredTable:
    """One table as the database holds it."""

    row: dict[str, Any]
    seats: list[dict[str, Any]]
    rounds: list[dict[str, Any]]
    events: list[dict[str, Any]]


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _upgrade(connection: Connection) -> None:
    config = Config(str(HERE / "alembic.ini"))
    config.set_main_option("script_location", str(HERE / "migrations"))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _write_batch(connection: Connection, batch: Batch) -> None:
    """Commit ``batch`` in one transaction: its fence checks first, then its rows and updates."""
    with connection.begin():
        for _, check in sorted(batch.checks, key=lambda keyed: keyed[0]):
            if connection.execute(check).rowcount != 1:
                raise FenceLost("a table's lease is no longer this process's")
        for table in _INSERT_ORDER:
            rows = batch.rows.get(table.name)
            if rows:
                connection.execute(table.insert(), rows)
        for statement in batch.updates:
            connection.execute(statement)


class Store:
    """The server's database: open it with :meth:`open`, write with :meth:`write`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._queue: asyncio.Queue[tuple[Batch, asyncio.Future[None]]] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._connection: AsyncConnection | None = None
        self._thread_engine: Engine | None = None
        """SQLite: the writer's own synchronous engine, used from :attr:`_thread` alone."""
        self._thread_connection: Connection | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._lock_file: IO[str] | None = None
        self._lock_connection: AsyncConnection | None = None
        self._holding: asyncio.Task[None] | None = None
        self.hold_lost: str | None = None
        """Why this process does not hold the database now (its lock's connection ended, and
        the lock could not be taken again yet); ``None`` while it does. Writes are refused
        meanwhile."""
        self.on_commit: Callable[[Batch, float], None] | None = None
        """Told of each commit of the writer: what it wrote and how many seconds it took
        (``server/metrics.py``)."""

    @asynccontextmanager
    async def _closed_unless_opened(self, url: str) -> AsyncIterator[None]:
        """Close this store if the block fails; a database error or an unreachable server is
        raised as :class:`DatabaseUnavailable` naming ``url`` (its password hidden)."""
        try:
            yield
        except DatabaseUnavailable:
            await self.close()
            raise
        except (DBAPIError, OSError) as error:
            await self.close()
            where = make_url(url).render_as_string(hide_password=True)
            cause = getattr(error, "orig", None) or error
            raise DatabaseUnavailable(f"cannot use the database {where}: {cause}") from None

    @classmethod
    async def open(cls, url: str, *, shared: bool = False) -> Store:
        """Connect to ``url``, take the database for this process alone (``shared``: not, a
        cluster's processes share it, each table under a lease), bring its schema up to date,
        start the writer. Raises :class:`DatabaseUnavailable` saying why it cannot."""
        engine = create_async_engine(url, pool_pre_ping=not url.startswith("sqlite"))
        store = cls(engine)
        async with store._closed_unless_opened(url):
            await store._take(url, shared)
            if engine.dialect.name == "sqlite":
                event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
                if store._lock_file is not None:  # a file, which a second connection shares
                    store._write_in_a_thread(url)
            async with engine.begin() as connection:
                if shared:  # the cluster's processes migrate one at a time
                    await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                             {"key": ADVISORY_LOCK + 1})
                await connection.run_sync(_upgrade)
        store._writer = asyncio.create_task(store._write_forever())
        if store._lock_connection is not None:
            store._holding = asyncio.create_task(store._keep_hold(url, shared))
        return store

    @classmethod
    async def hold(cls, url: str) -> Store:
        """Take the database for this process alone, as :meth:`open` does, without migrating it
        or starting the writer (``kseri restore`` overwrites it meanwhile, so that no server can
        start on it). Raises :class:`DatabaseUnavailable` when a server uses it or it cannot be
        reached."""
        store = cls(create_async_engine(url))
        if store.dialect.name == "sqlite":
            event.listen(store.engine.sync_engine, "connect", _sqlite_pragmas)
        async with store._closed_unless_opened(url):
            await store._take(url, False)
        return store

    async def upgrade(self) -> None:
        """Bring the schema up to date (Alembic, as at every start)."""
        async with self.engine.begin() as connection:
            await connection.run_sync(_upgrade)

    def _write_in_a_thread(self, url: str) -> None:
        """Commit each batch in one call to a thread of the writer's own, on a synchronous
        connection to the same SQLite file: aiosqlite would hop to its thread and back through
        the busy event loop once per statement, and under load each hop waits for a turn of
        the loop (docs/scaling.md)."""
        self._thread_engine = create_engine(make_url(url).set(drivername="sqlite"))
        event.listen(self._thread_engine, "connect", _sqlite_pragmas)
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")

    async def _keep_hold(self, url: str, shared: bool) -> None:
        """Check the advisory lock's connection every :data:`HOLD_CHECK` seconds; when it has
        ended (the lock with it), refuse writes until the lock is taken again."""
        while True:
            await asyncio.sleep(HOLD_CHECK)
            if self._lock_connection is not None:
                try:
                    await self._lock_connection.execute(text("SELECT 1"))
                    await self._lock_connection.commit()
                    continue
                except Exception as error:
                    self.hold_lost = ("this process lost its hold on the database (the connection "
                                      "holding its lock ended); it writes nothing until it holds it again")
                    log.warning("%s: %s", self.hold_lost, error)
                    with suppress(Exception):
                        await self._lock_connection.invalidate()
                    self._lock_connection = None
            try:
                await self._take(url, shared)
            except DatabaseUnavailable as refused:
                if self.hold_lost != str(refused):
                    log.error("cannot take the database's lock again: %s", refused)
                self.hold_lost = str(refused)
            except Exception as error:  # the database is out of reach: try again next time
                log.warning("cannot take the database's lock again yet: %s", error)
            else:
                self.hold_lost = None
                log.warning("this process holds the database's lock again")

    async def _take(self, url: str, shared: bool) -> None:
        """Hold the database for this process: a lock on a file beside an SQLite database, an
        advisory lock on PostgreSQL; another ``kseri serve`` on it is refused, saying so.
        ``shared``: a cluster's process shares the lock with the others of its cluster (a
        single-process server is still refused while they run, and they while it runs)."""
        database = make_url(url).database
        busy = ("another kseri serve is using the database {}; stop it, or give this one its own "
                "--db (one process per database)")
        if self.engine.dialect.name == "sqlite":
            if not database or database == ":memory:":
                return
            path = Path(database.removeprefix("file:")).resolve()
            if not path.parent.is_dir():
                raise DatabaseUnavailable(
                    f"cannot use the database {path}: the folder {path.parent} does not exist")
            try:
                handle = open(f"{path}.lock", "a+")  # noqa: SIM115 (held until close)
            except OSError as error:
                raise DatabaseUnavailable(f"cannot use the database {path}: {error.strerror}") from None
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                raise DatabaseUnavailable(busy.format(path)) from None
            self._lock_file = handle
        elif self.engine.dialect.name == "postgresql":
            connection = await self.engine.connect()
            take = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
            held = await connection.scalar(text(f"SELECT {take}(:key)"), {"key": ADVISORY_LOCK})
            await connection.commit()  # the lock outlives the transaction; the session idles
            if not held:
                await connection.close()
                if shared:
                    busy = ("a single-process kseri serve is using the database {}; stop it before "
                            "starting a cluster on it")
                raise DatabaseUnavailable(busy.format(make_url(url).render_as_string(hide_password=True)))
            self._lock_connection = connection

    @property
    def dialect(self) -> Dialect:
        """The database's SQL dialect."""
        return self.engine.dialect

    async def close(self) -> None:
        """Finish queued writes and disconnect."""
        if self._holding is not None:
            self._holding.cancel()
        if self._writer is not None:
            await self._queue.join()
            self._writer.cancel()
        if self._connection is not None:
            await self._connection.close()
        if self._thread is not None:
            if self._thread_connection is not None:
                await asyncio.get_running_loop().run_in_executor(self._thread, self._thread_connection.close)
            self._thread.shutdown()
            assert self._thread_engine is not None
            self._thread_engine.dispose()
        if self._lock_connection is not None:
            with suppress(Exception):
                await self._lock_connection.close()
        await self.engine.dispose()
        if self._lock_file is not None:
            self._lock_file.close()

    async def write(self, batch: Batch) -> None:
        """Commit ``batch``; returns once it is durable (raises if it could not be)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((batch, future))
        await future

    async def _write_forever(self) -> None:
        while True:
            items = [await self._queue.get()]
            while not self._queue.empty():
                items.append(self._queue.get_nowait())
            try:
                merged = Batch()
                for batch, _ in items:
                    merged.extend(batch)
                await self._commit(merged)
                results: list[BaseException | None] = [None] * len(items)
            except Exception:  # one bad batch must not sink the others: retry each alone
                results = []
                for batch, _ in items:
                    try:
                        await self._commit(batch)
                        results.append(None)
                    except Exception as failure:
                        results.append(failure)
            for (_, future), error in zip(items, results, strict=True):
                self._queue.task_done()
                if future.done():
                    continue
                if error is None:
                    future.set_result(None)
                else:
                    future.set_exception(error)

    async def _commit(self, batch: Batch) -> None:
        started = time.perf_counter()
        if self.hold_lost is not None:
            raise HoldLost(self.hold_lost)
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._commit_in_thread, batch)
        else:
            # the writer keeps one connection: no pool check-out and reset per transaction
            if self._connection is None:
                self._connection = await self.engine.connect()
            connection = self._connection
            try:
                await connection.run_sync(_write_batch, batch)
            except Exception:
                self._connection = None
                with suppress(Exception):
                    await connection.close()
                raise
        if self.on_commit is not None:
            self.on_commit(batch, time.perf_counter() - started)

    def _commit_in_thread(self, batch: Batch) -> None:
        assert self._thread_engine is not None
        if self._thread_connection is None:
            self._thread_connection = self._thread_engine.connect()
        connection = self._thread_connection
        try:
            _write_batch(connection, batch)
        except Exception:
            self._thread_connection = None
            with suppress(Exception):
                connection.close()
            raise

    async def delete_table(self, table_id: str) -> None:
        """Remove a table and everything stored for it (a table nobody joined, expired)."""
        batch = Batch()
        for table in reversed(_INSERT_ORDER):
            key = table.c.id if table is tables else table.c.table_id
            batch.updates.append(delete(table).where(key == table_id))
        await self.write(batch)

    async def unfinished(self) -> list[str]:
        """The ids of tables whose match is not over."""
        async with self.engine.connect() as connection:
            result = await connection.execute(select(tables.c.id).where(tables.c.finished.is_(False)))
            return [row[0] for row in result]

    async def load(self, table_id: str) -> StoredTable | None:
        """Everything stored for one table, or ``None``."""
        async with self.engine.connect() as connection:
            return await _load(connection, table_id)


async def _load(connection: AsyncConnection, table_id: str) -> StoredTable | None:
    row = (await connection.execute(select(tables).where(tables.c.id == table_id))).mappings().first()
    if row is None:
        return None

    async def rows(table: Table, order: Column[Any]) -> list[dict[str, Any]]:
        result = await connection.execute(select(table).where(table.c.table_id == table_id).order_by(order))
        return [dict(r) for r in result.mappings()]

    return StoredTable(
        dict(row),
        await rows(seats, seats.c.seat),
        await rows(rounds, rounds.c.round),
        await rows(events, events.c.seq),
    )


def set_table(table_id: str, **values: Any) -> Update:
    """An update of one table's row."""
    return update(tables).where(tables.c.id == table_id).values(**values)


def set_seat(table_id: str, seat: int, **values: Any) -> Update:
    """An update of one seat's row."""
    return update(seats).where(seats.c.table_id == table_id, seats.c.seat == seat).values(**values)



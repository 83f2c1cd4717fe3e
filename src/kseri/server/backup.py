"""Backups: a consistent copy of a running server's database, and its restoration, checked.

:func:`backup` copies the database while the server keeps writing: SQLite's backup API in one
read transaction (the WAL journal lets the server commit meanwhile) into an SQLite file, or
``pg_dump`` (one snapshot, custom format) with the client of the server's major version.
:func:`restore` refuses a database a server uses (it takes the server's own lock first: the
lock file beside an SQLite file, the advisory lock on PostgreSQL, ``db.Store.hold``) and one
that holds games or accounts unless told to replace them; it copies the backup in, migrates it
to this version's schema and checks it (:func:`check`): every table's log replays through the
engine, every finished game's record verifies (``kseri.records``), and the accounts and
ratings are whole.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, inspect, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from kseri.records import record_problems
from kseri.server import accounts, db, ratings
from kseri.server.room import GameTable
from kseri.server.settings import ServerSettings
from kseri.server.workers import SearchPool

SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first bytes of an SQLite file (an SQLite backup)."""
PG_DUMP_MAGIC = b"PGDMP"
"""The first bytes of ``pg_dump``'s custom format (a PostgreSQL backup)."""
POSTGRES_BINARIES = "/usr/lib/postgresql/*/bin"
"""Where Debian and Ubuntu install each PostgreSQL version's programs (as ``scripts/postgres``)."""
PROGRESS_EVERY = 0.1
"""The share of the tables between two progress lines of a check."""

Progress = Callable[[str], None]
"""Told one line at a time how the work goes."""


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why, in one sentence."""


@dataclass(slots=True)
class Check:
    """What :func:`check` found in a database."""

    tables: int = 0
    """Tables whose event log replayed through the engine."""
    records: int = 0
    """Finished games whose record verified."""
    accounts: int = 0
    ratings: int = 0
    """Ratings (a player's, in one family) whose history matched them."""
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: what was checked, and how many problems."""
        found = "no problems" if not self.problems else f"{len(self.problems)} problems"
        return (f"{self.tables} tables replayed, {self.records} finished games' records verified, "
                f"{self.accounts} accounts and {self.ratings} ratings whole: {found}")


def _where(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def _sqlite_path(url: str) -> Path:
    database = make_url(url).database
    if not database or database == ":memory:":
        raise BackupError(f"{_where(url)} is not an SQLite file")
    return Path(database.removeprefix("file:")).resolve()


def _libpq(url: str) -> tuple[str, dict[str, str]]:
    """The libpq URI of a SQLAlchemy PostgreSQL URL (no password in it: the command line is
    visible to every user), and the environment that carries the password."""
    parsed: URL = make_url(url)
    environment = dict(os.environ)
    if parsed.password:
        environment["PGPASSWORD"] = str(parsed.password)
    plain = parsed.set(drivername="postgresql", password=None, query={})
    return plain.render_as_string(hide_password=False), environment


async def _server_major(engine: AsyncEngine) -> int:
    async with engine.connect() as connection:
        number = int(await connection.scalar(text("SHOW server_version_num")))
    return number // 10000


def _major_of(program: str) -> int | None:
    try:
        shown = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return None
    found = re.search(r"(\d+)(?:\.\d+)?", shown)
    return int(found.group(1)) if found else None


def postgres_program(name: str, server_major: int) -> str:
    """The ``pg_dump`` or ``pg_restore`` to use with a server of this major version: that
    version's own (``/usr/lib/postgresql/N/bin``), else the newest found not older than the
    server (an older one refuses the server's dumps)."""
    candidates = [str(Path(POSTGRES_BINARIES.replace("*", str(server_major))) / name)]
    installed = [folder for folder in Path("/").glob(POSTGRES_BINARIES.lstrip("/"))
                 if folder.parent.name.isdigit()]
    candidates += [str(folder / name) for folder in sorted(installed, key=lambda f: -int(f.parent.name))]
    candidates += [found for found in [shutil.which(name)] if found]
    seen = []
    for program in dict.fromkeys(candidates):
        major = _major_of(program) if Path(program).exists() else None
        if major is not None and major >= server_major:
            return program
        if major is not None:
            seen.append(f"{program} ({major})")
    have = f"; found only {', '.join(seen)}" if seen else ""
    raise BackupError(f"no {name} of PostgreSQL {server_major} or later{have}: install the "
                      f"postgresql-client-{server_major} package")


def _run(command: list[str], environment: dict[str, str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise BackupError(f"{what} failed: {said}")


async def backup(url: str, path: Path, progress: Progress = lambda line: None) -> int:
    """Copy the database at ``url`` to the new file ``path`` while a server may be using it;
    returns the file's size in bytes. The copy is consistent: one moment of the database."""
    if path.exists():
        raise BackupError(f"{path} exists already; choose a new file for the backup")
    if not path.parent.is_dir():
        raise BackupError(f"the folder {path.parent} does not exist")
    partial = path.with_name(path.name + ".partial")
    started = time.perf_counter()
    try:
        if make_url(url).get_backend_name() == "sqlite":
            source = _sqlite_path(url)
            if not source.is_file():
                raise BackupError(f"there is no database at {source}")
            progress(f"copying {source} with SQLite's backup API")
            await asyncio.to_thread(_copy_sqlite, source, partial)
        else:
            engine = create_async_engine(url)
            try:
                major = await _server_major(engine)
            except (DBAPIError, OSError) as error:
                cause = getattr(error, "orig", None) or error
                raise BackupError(f"cannot reach the database {_where(url)}: {cause}") from None
            finally:
                await engine.dispose()
            program = postgres_program("pg_dump", major)
            progress(f"dumping {_where(url)} (PostgreSQL {major}) with {program}")
            uri, environment = _libpq(url)
            await asyncio.to_thread(_run, [program, "--format=custom", "--no-owner", f"--file={partial}",
                                           f"--dbname={uri}"], environment, "pg_dump")
        partial.rename(path)
    finally:
        partial.unlink(missing_ok=True)
    size = path.stat().st_size
    progress(f"wrote {path}: {size} bytes in {time.perf_counter() - started:.1f} s")
    return size


def _copy_sqlite(source: Path, target: Path) -> None:
    """Copy in one step (one read transaction): a step-by-step copy starts over each time the
    server writes, and under load would never end."""
    reading = sqlite3.connect(source)
    writing = sqlite3.connect(target)
    try:
        reading.execute("PRAGMA busy_timeout=10000")
        reading.backup(writing, pages=-1)
        verdict = writing.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise BackupError(f"the copy of {source} is damaged: {verdict}")
    finally:
        writing.close()
        reading.close()


def _kind_of(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            start = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise BackupError(f"cannot read {path}: {error.strerror}") from None
    if start.startswith(SQLITE_MAGIC):
        return "sqlite"
    if start.startswith(PG_DUMP_MAGIC):
        return "postgresql"
    raise BackupError(f"{path} is not a kseri backup (neither an SQLite file nor a pg_dump archive)")


async def restore(path: Path, url: str, *, replace: bool = False,
                  progress: Progress = lambda line: None) -> Check:
    """Copy the backup ``path`` into the database at ``url``, migrate it and :func:`check` it.

    Refused (:class:`BackupError`, nothing changed) while a server uses the database, and when
    it holds tables or accounts and ``replace`` is not given."""
    kind = _kind_of(path)
    backend = make_url(url).get_backend_name()
    if kind != backend:
        raise BackupError(f"{path} is a backup of an {'SQLite' if kind == 'sqlite' else 'PostgreSQL'} "
                          f"database; restore it into one of the same kind, not {_where(url)}")
    try:
        store = await db.Store.hold(url)
    except db.DatabaseUnavailable as error:
        raise BackupError(f"refused: {error}") from None
    try:
        held = await _contents(store)
        if any(held.values()) and not replace:
            raise BackupError(f"the database {_where(url)} already holds {held['tables']} tables and "
                              f"{held['users']} accounts; a restore replaces everything in it: give "
                              "--replace to do so, or restore into a new database")
        progress(f"restoring {path} into {_where(url)} (held: no server can start on it meanwhile)")
        if kind == "sqlite":
            await store.engine.dispose()
            await asyncio.to_thread(_copy_into_sqlite, path, _sqlite_path(url))
        else:
            await _drop_everything(store)
            program = postgres_program("pg_restore", await _server_major(store.engine))
            uri, environment = _libpq(url)
            await asyncio.to_thread(_run, [program, "--no-owner", "--exit-on-error", "--single-transaction",
                                           f"--dbname={uri}", str(path)], environment, "pg_restore")
        before = await _revision(store)
        await store.upgrade()
        after = await _revision(store)
        progress(f"schema {before}" + ("" if before == after else f", migrated to {after}"))
        return await check(store, url, progress)
    finally:
        await store.close()


def _copy_into_sqlite(backup_file: Path, target: Path) -> None:
    reading = sqlite3.connect(f"file:{backup_file}?mode=ro", uri=True)
    writing = sqlite3.connect(target)
    try:
        reading.backup(writing, pages=-1)
    finally:
        writing.close()
        reading.close()


async def _contents(store: db.Store) -> dict[str, int]:
    """How many tables (games) and accounts the database holds (0 when it has no schema)."""
    async with store.engine.connect() as connection:
        present = set(await connection.run_sync(lambda sync: inspect(sync).get_table_names()))
        counts = {}
        for name, table in (("tables", db.tables), ("users", accounts.users)):
            counts[name] = await connection.scalar(select(func.count()).select_from(table)) or 0 \
                if name in present else 0
    return counts


async def _drop_everything(store: db.Store) -> None:
    """Drop every table of the PostgreSQL database's schema, so that the restore leaves none of
    a newer schema behind (pg_restore's ``--clean`` drops only what the dump holds)."""
    async with store.engine.begin() as connection:
        names = await connection.run_sync(lambda sync: inspect(sync).get_table_names())
        for name in names:
            await connection.execute(text(f'DROP TABLE IF EXISTS "{name}" CASCADE'))


async def _revision(store: db.Store) -> str:
    async with store.engine.connect() as connection:
        present = await connection.run_sync(lambda sync: inspect(sync).has_table("alembic_version"))
        if not present:
            return "(none)"
        return str(await connection.scalar(text("SELECT version_num FROM alembic_version")))


async def check(store: db.Store, url: str, progress: Progress = lambda line: None) -> Check:
    """Check a database as a restore must: every table's log replays through the engine, every
    finished game's record verifies, and the accounts and ratings are whole."""
    found = Check()
    async with store.engine.connect() as connection:
        table_ids = [row[0] for row in await connection.execute(
            select(db.tables.c.id).order_by(db.tables.c.created))]
    settings = ServerSettings(database_url=url)
    search = SearchPool(1)
    step = max(1, int(len(table_ids) * PROGRESS_EVERY))
    try:
        for number, table_id in enumerate(table_ids, 1):
            stored = await store.load(table_id)
            assert stored is not None
            try:
                table = GameTable.restore(stored, store, settings, search)
            except Exception as error:  # any failure to replay is what the check reports
                found.problems.append(f"table {table_id}: its event log does not replay: {error}")
                continue
            found.tables += 1
            if stored.row["finished"] and table.state.match is not None:
                problems = await asyncio.to_thread(record_problems, table.record())
                found.problems += [f"table {table_id}: {problem}" for problem in problems]
                found.records += not problems
            if number % step == 0 or number == len(table_ids):
                progress(f"checked {number} of {len(table_ids)} tables")
    finally:
        search.close()
    await _check_players(store, found)
    return found


async def _check_players(store: db.Store, found: Check) -> None:
    """Accounts and ratings whole: every rating, history entry, session and seat names an
    account that exists; each rating's games and value are those of its history."""
    users, history, rated = accounts.users, ratings.rating_history, ratings.ratings
    async with store.engine.connect() as connection:
        known = {row[0] for row in await connection.execute(select(users.c.id))}
        found.accounts = len(known)
        orphans = (("a rating", select(rated.c.user_id)), ("a rating's history", select(history.c.user_id)),
                   ("a session", select(accounts.sessions.c.user_id)),
                   ("a seat", select(db.seats.c.user_id).where(db.seats.c.user_id.is_not(None))))
        for what, query in orphans:
            missing = {row[0] for row in await connection.execute(query)} - known
            found.problems += [f"{what} names the account {user}, which does not exist"
                               for user in sorted(missing)]
        tables = {row[0]: row[1]
                  for row in await connection.execute(select(db.tables.c.id, db.tables.c.rated))}
        entries: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for user, family, table_id, mu, sigma in await connection.execute(
                select(history.c.user_id, history.c.family, history.c.table_id, history.c.mu, history.c.sigma)
                .order_by(history.c.id)):
            entries.setdefault((user, family), []).append((mu, sigma))
            if table_id is not None and not tables.get(table_id, False):  # None: a rated challenge
                found.problems.append(f"{user}'s {family} rating changed after the game {table_id}, "
                                      "which is not a rated game of this database")
        for user, family, mu, sigma, games in await connection.execute(
                select(rated.c.user_id, rated.c.family, rated.c.mu, rated.c.sigma, rated.c.games)):
            past = entries.get((user, family), [])
            if len(past) != games:
                found.problems.append(f"{user}'s {family} rating counts {games} games, "
                                      f"its history {len(past)}")
            elif past and past[-1] != (mu, sigma):
                found.problems.append(f"{user}'s {family} rating is not the last of its history")
            else:
                found.ratings += 1

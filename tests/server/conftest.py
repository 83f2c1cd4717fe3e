"""Fixtures for the server's tests: databases (SQLite files; PostgreSQL when
KSERI_TEST_POSTGRES_URL is set) and running servers."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from serverkit import POSTGRES_ENV, Server, postgres_url


async def _postgres(url: str, sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: an SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}"
        return
    base = postgres_url()
    if base is None:
        pytest.skip(f"{POSTGRES_ENV} is not set (scripts/postgres start prints it)")
    name = f"kseri_{secrets.token_hex(6)}"
    asyncio.run(_postgres(base, f"CREATE DATABASE {name}"))
    yield base.rsplit("/", 1)[0] + "/" + name
    asyncio.run(_postgres(base, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite database file."""
    return f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}"


@pytest.fixture
def start_server() -> Iterator[Callable[..., Server]]:
    """Start ``kseri serve`` processes (stopped after the test)."""
    started: list[Server] = []

    def start(database_url: str, **options: str) -> Server:
        server = Server(database_url, {f"--{k.replace('_', '-')}": v for k, v in options.items()})
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the session's tests that do not stop it: a fresh SQLite file, bots
    playing at once (each test opens its own tables)."""
    path = tmp_path_factory.mktemp("shared-server") / "kseri.db"
    shared = Server(f"sqlite+aiosqlite:///{path}").start()
    yield shared
    shared.stop()


@pytest.fixture
def clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """The server's clock (``KSERI_CLOCK_FILE``, the daily's and the challenges' knob): a file
    the test rewrites, at noon UTC on 2026-12-04 to begin with."""
    path = tmp_path / "now.txt"

    def set_time(when: str) -> None:
        path.write_text(when)

    set_time("2026-12-04T12:00:00+00:00")
    monkeypatch.setenv("KSERI_CLOCK_FILE", str(path))
    yield set_time

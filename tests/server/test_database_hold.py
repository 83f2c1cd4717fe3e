"""A single ``kseri serve`` on PostgreSQL holds its database through an advisory lock on a
connection of its own (another ``kseri serve`` on the same database is refused). When that
connection ends, the lock goes with it: the process writes nothing until it holds the lock
again, and says so in ``/readyz``; if another took the lock meanwhile, it stays refused."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable

import asyncpg
import httpx
import pytest
from serverkit import Server, human, postgres_url

from kseri.server.db import ADVISORY_LOCK

HOLDER = ("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 "
          "AND objid = $2 AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = $3)")
"""The backend holding the server's lock (a bigint key is shown split in two halves)."""


def ready(server: Server) -> httpx.Response:
    return httpx.get(server.http + "/readyz", timeout=10)


def until(condition: Callable[[], bool], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true"
        time.sleep(0.1)


def test_a_lost_database_lock_stops_writes_until_it_is_taken_again(
        start_server: Callable[..., Server]) -> None:
    base = postgres_url()
    if base is None:
        pytest.skip("KSERI_TEST_POSTGRES_URL is not set (scripts/postgres start prints it)")
    name = f"kseri_{secrets.token_hex(6)}"
    plain = base.replace("postgresql+asyncpg://", "postgresql://")
    asyncio.run(_sql(plain, f"CREATE DATABASE {name}"))
    url = base.rsplit("/", 1)[0] + "/" + name
    plain_db = plain.rsplit("/", 1)[0] + "/" + name
    key = (ADVISORY_LOCK >> 32, ADVISORY_LOCK & 0xFFFFFFFF, name)
    try:
        server = start_server(url)
        assert ready(server).status_code == 200

        async def taken_over() -> asyncpg.Connection:
            """End the server's lock connection while another session waits for the lock."""
            rival = await asyncpg.connect(plain_db)
            holder = await rival.fetchval(HOLDER, *key)
            assert holder is not None
            waiting = asyncio.create_task(rival.execute("SELECT pg_advisory_lock($1)", ADVISORY_LOCK))
            await asyncio.sleep(0.3)
            await _sql(plain_db, f"SELECT pg_terminate_backend({holder})")
            await asyncio.wait_for(waiting, 10)
            return rival

        # another session gets the lock the moment the server's connection ends
        loop = asyncio.new_event_loop()
        rival = loop.run_until_complete(taken_over())
        try:
            until(lambda: ready(server).status_code == 503)
            problems = ready(server).json()["problems"]
            assert any("another kseri serve is using the database" in p for p in problems), problems
            refused = httpx.post(server.http + "/api/tables", json={"seats": [human("Ana"), human("Ben")]},
                                 timeout=10)
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "storage-unavailable"
            assert asyncio.run(_count(plain_db)) == 0  # nothing written
        finally:
            loop.run_until_complete(rival.close())
            loop.close()
        # the rival gone, the server takes the lock again and writes
        until(lambda: ready(server).status_code == 200)
        server.create([human("Ana"), human("Ben")])
        assert asyncio.run(_count(plain_db)) == 1

        # with nobody waiting, it takes the lock again at once: a second server is refused
        first = asyncio.run(_holder(plain_db, key))
        asyncio.run(_sql(plain_db, f"SELECT pg_terminate_backend({first})"))
        until(lambda: asyncio.run(_holder(plain_db, key)) not in (None, first))
        assert ready(server).status_code == 200
        with pytest.raises(RuntimeError, match="another kseri serve is using the database"):
            start_server(url)
        server.create([human("Cleo"), human("Dan")])
        assert asyncio.run(_count(plain_db)) == 2
    finally:
        asyncio.run(_sql(plain, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


async def _sql(url: str, statement: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


async def _holder(url: str, key: tuple[int, int, str]) -> int | None:
    connection = await asyncpg.connect(url)
    try:
        holder: int | None = await connection.fetchval(HOLDER, *key)
        return holder
    finally:
        await connection.close()


async def _count(url: str) -> int:
    connection = await asyncpg.connect(url)
    try:
        count: int = await connection.fetchval("SELECT count(*) FROM tables")
        return count
    finally:
        await connection.close()

"""The database layer on SQLite and PostgreSQL: migrations at start-up, group commit, and one
bad batch never sinking the others."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import httpx
import pytest
from serverkit import free_port, postgres_url
from sqlalchemy import text

from kseri.server import db


def table_row(table_id: str) -> dict[str, object]:
    return {"id": table_id, "created": 0.0, "rules": "{}", "casual": True, "public": True, "clock": None,
            "first_dealer": 0, "finished": False, "rematch_of": None, "rematch": None}


async def test_migrations_run_once_and_group_commits_keep_good_batches(database_url: str) -> None:
    store = await db.Store.open(database_url)
    await store.close()
    store = await db.Store.open(database_url)  # a second start finds the schema up to date
    try:
        async with store.engine.connect() as connection:
            version = (await connection.execute(text("SELECT version_num FROM alembic_version"))).scalar()
        assert version == "0016"
        first = db.Batch()
        first.insert(db.tables, **table_row("t"))
        await store.write(first)

        def play(seq: int) -> db.Batch:
            batch = db.Batch()
            batch.insert(db.events, table_id="t", seq=seq, kind="play", seat=seq % 2, card="TD", data=None)
            return batch

        # fifty writers at once, one of them repeating seq 7: only that one fails
        batches = [play(seq) for seq in range(1, 50)] + [play(7)]
        results = await asyncio.gather(*(store.write(b) for b in batches), return_exceptions=True)
        failures = [r for r in results if isinstance(r, Exception)]
        assert len(failures) == 1
        stored = await store.load("t")
        assert stored is not None and [e["seq"] for e in stored.events] == list(range(1, 50))
        assert await store.unfinished() == ["t"]
        finish = db.Batch()
        finish.updates.append(db.set_table("t", finished=True))
        await store.write(finish)
        assert await store.unfinished() == []
        assert await store.load("nothing") is None
    finally:
        await store.close()


def test_ci_must_test_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI never skips the PostgreSQL tests silently: without the URL they fail."""
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("KSERI_TEST_POSTGRES_URL", raising=False)
    with pytest.raises(pytest.fail.Exception, match="KSERI_TEST_POSTGRES_URL"):
        postgres_url()


def test_kseri_serve_needs_no_set_up(tmp_path: Path) -> None:
    """Without --db or KSERI_DATABASE_URL the server makes its SQLite file in the user's data
    folder (platformdirs: $XDG_DATA_HOME on Linux) and prints the address to open."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "KSERI_DATABASE_URL"}
    env["XDG_DATA_HOME"] = str(tmp_path)
    process = subprocess.Popen([sys.executable, "-m", "kseri", "serve", "--port", str(port)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert process.stdout is not None
        first = process.stdout.readline().decode()
        assert f"http://127.0.0.1:{port}/" in first
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/api/rules", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        assert (tmp_path / "kseri" / "kseri.db").is_file()
    finally:
        process.terminate()
        process.wait(10)

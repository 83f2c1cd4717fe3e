"""The database layer on SQLite and PostgreSQL: migrations at start-up, group commit, and one
bad batch never sinking the others."""

from __future__ import annotations

import asyncio

import pytest
from serverkit import postgres_url
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
        assert version == "0001"
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

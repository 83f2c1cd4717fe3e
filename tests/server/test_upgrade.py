"""A database made by release 0.1.0's server (tests/server/data, made before accounts existed)
upgrades in place: its games still replay and verify, its waiting table still plays, and a
guest's seat in it can join an account."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from alembic import command
from alembic.config import Config
from playerkit import Browser, Player
from serverkit import Server
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from kseri.records import replay_record, verify_record
from kseri.server import db

DATA = Path(__file__).parent / "data"


TABLES = ("tables", "seats", "rounds", "events")
BOOLEANS = {"casual", "public", "finished"}


def release_rows() -> dict[str, list[dict[str, Any]]]:
    """Every row of the release's database, by table."""
    source = sqlite3.connect(DATA / "release-0.1.0.db")
    source.row_factory = sqlite3.Row
    try:
        return {name: [dict(row) for row in source.execute(f"SELECT * FROM {name}")] for name in TABLES}
    finally:
        source.close()


async def _query(url: str, sql: str) -> list[tuple[Any, ...]]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            return [tuple(row) for row in await connection.execute(text(sql))]
    finally:
        await engine.dispose()


def query(url: str, sql: str) -> list[tuple[Any, ...]]:
    return asyncio.run(_query(url, sql))


async def _release_schema_with_rows(url: str) -> None:
    """The release's schema (migration 0001, as release 0.1.0 made it) holding its rows."""
    engine = create_async_engine(url)

    def migrate(connection: Any) -> None:
        config = Config(str(db.HERE / "alembic.ini"))
        config.set_main_option("script_location", str(db.HERE / "migrations"))
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")

    try:
        async with engine.begin() as connection:
            await connection.run_sync(migrate)
            for name, rows in release_rows().items():
                for row in rows:
                    values = {k: bool(v) if k in BOOLEANS else v for k, v in row.items()}
                    columns = ", ".join(values)
                    marks = ", ".join(f":{k}" for k in values)
                    await connection.execute(text(f"INSERT INTO {name} ({columns}) VALUES ({marks})"), values)
    finally:
        await engine.dispose()


def test_a_release_database_upgrades_in_place(start_server: Callable[..., Server], database_url: str,
                                              tmp_path: Path) -> None:
    """On SQLite, the release's own file; on PostgreSQL, its schema (migration 0001) holding
    the same rows."""
    known = json.loads((DATA / "release-0.1.0.json").read_text())
    if database_url.startswith("sqlite"):
        path = tmp_path / "release.db"
        shutil.copy(DATA / "release-0.1.0.db", path)
        database_url = f"sqlite+aiosqlite:///{path}"
    else:
        asyncio.run(_release_schema_with_rows(database_url))
    assert query(database_url, "SELECT version_num FROM alembic_version") == [("0001",)]
    counts = {name: len(rows) for name, rows in release_rows().items()}
    assert all(counts.values())

    server = start_server(database_url)
    assert query(database_url, "SELECT version_num FROM alembic_version") == [("0016",)]
    for name, count in counts.items():
        assert query(database_url, f"SELECT count(*) FROM {name}") == [(count,)], name
    assert query(database_url, "SELECT count(*) FROM tables WHERE rated") == [(0,)]
    assert query(database_url, "SELECT count(*) FROM seats WHERE user_id IS NOT NULL") == [(0,)]

    for table_id in known["finished"]:
        record = httpx.get(f"{server.http}/api/tables/{table_id}/record", timeout=10).json()
        assert record["complete"], table_id
        assert replay_record(record) == [] and verify_record(record) == [], table_id

    # the guest of the old release signs up and keeps the game; the waiting table plays on
    eleni = Browser(server)
    guest, waiting = known["guest"], known["waiting"]
    claimed = eleni.sign_up("Eleni", seats=[guest, waiting])["claimed"]
    assert claimed == [{"table": guest["table"], "seat": 0}, {"table": waiting["table"], "seat": 0}]
    lines = eleni.http.get("/api/players/Eleni/games").text.splitlines()
    assert [json.loads(line)["table"] for line in lines] == [guest["table"]]

    async def play() -> None:
        player = await Player.connect(eleni, waiting["table"])
        assert player.seat == 0
        final = await player.play_to_the_end()
        assert final["table"]["winner"] is not None
        await player.close()

    asyncio.run(play())
    record = httpx.get(f"{server.http}/api/tables/{waiting['table']}/record", timeout=10).json()
    assert replay_record(record) == [] and verify_record(record) == []

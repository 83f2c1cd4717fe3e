"""``kseri backup`` and ``kseri restore`` against a real server on loopback: a backup taken
while 20 tables play, restored into a fresh database and served again, every finished game's
record the same; a restore onto a database a server uses refused (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playerkit import Browser, Player
from serverkit import Client, Server, bot, finished, human

TABLES = 20


def kseri(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kseri", *args], capture_output=True, text=True, timeout=300)


async def _postgres(url: str, sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@pytest.fixture
def fresh_database(tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """Another empty database of the same kind as a given one."""
    made: list[tuple[str, str]] = []

    def fresh(like: str) -> str:
        if like.startswith("sqlite"):
            return f"sqlite+aiosqlite:///{tmp_path / f'restored-{secrets.token_hex(3)}.db'}"
        name = f"kseri_restored_{secrets.token_hex(6)}"
        asyncio.run(_postgres(like, f"CREATE DATABASE {name}"))
        made.append((like, name))
        return like.rsplit("/", 1)[0] + "/" + name

    yield fresh
    for like, name in made:
        asyncio.run(_postgres(like, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


def play_rated_game(server: Server) -> tuple[str, dict[str, Any]]:
    """Two accounts pair for a rated game and play it out; the table and the server's ratings."""
    browsers = [Browser(server), Browser(server)]
    for browser, name in zip(browsers, ("Eleni", "Nikos"), strict=True):
        browser.sign_up(name)
    seeks = [browser.post("/api/seeks", {"family": "greek", "clock": 60}).json()["id"]
             for browser in browsers]
    seats = [browser.http.get(f"/api/seeks/{seek}", params={"wait": 10}).json()
             for browser, seek in zip(browsers, seeks, strict=True)]
    table_id = seats[0]["table"]

    async def play() -> None:
        players = [await Player.connect(browser, table_id) for browser in browsers]
        await asyncio.gather(*(player.play_to_the_end(300) for player in players))
        for player in players:
            await player.close()

    asyncio.run(play())
    return table_id, ratings_of(server)


def ratings_of(server: Server) -> dict[str, Any]:
    shown = {}
    for name in ("Eleni", "Nikos"):
        for _ in range(100):
            profile = httpx.get(f"{server.http}/api/players/{name}", timeout=10).json()
            if profile["ratings"]:
                break
            time.sleep(0.1)
        shown[name] = [(r["family"], r["games"], r["mu"], r["sigma"]) for r in profile["ratings"]]
    return shown


async def backup_under_load(server: Server, path: Path) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    """Open :data:`TABLES` tables of a person against a bot and play them all; once every one
    is under way, run ``kseri backup`` while they go on. The tables, and the backup's outcome."""
    tables = [server.create([human(), bot()], rules="greek,target=30") for _ in range(TABLES)]
    clients = [await Client.connect(server, t["table"]["id"], t["token"]) for t in tables]
    games = [asyncio.create_task(client.play_until(finished, timeout=600)) for client in clients]
    for client in clients:
        while not client.states or client.states[-1]["seq"] < 4:
            await asyncio.sleep(0.05)
    under_way = sum(not game.done() for game in games)
    done = await asyncio.to_thread(kseri, "backup", str(path), "--db", server.database_url)
    assert under_way >= TABLES // 2, "the backup was meant to run while the tables play"
    await asyncio.gather(*games)
    for client in clients:
        await client.close()
    return [t["table"]["id"] for t in tables], done


def test_a_backup_taken_under_load_restores_whole(start_server: Callable[..., Server], database_url: str,
                                                 fresh_database: Callable[[str], str],
                                                 tmp_path: Path) -> None:
    server = start_server(database_url)
    rated_table, rated = play_rated_game(server)
    backup_file = tmp_path / "kseri.backup"
    table_ids, done = asyncio.run(backup_under_load(server, backup_file))
    assert done.returncode == 0, done.stderr
    assert f"wrote {backup_file}" in done.stderr
    records = {table_id: httpx.get(f"{server.http}/api/tables/{table_id}/record", timeout=30).json()
               for table_id in [rated_table, *table_ids]}
    server.stop()

    target = fresh_database(database_url)
    restored = kseri("restore", str(backup_file), "--db", target)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert "problem:" not in restored.stdout
    assert f"checked {TABLES + 1} of {TABLES + 1} tables" in restored.stderr
    assert ", 2 accounts and 2 ratings whole: no problems" in restored.stdout

    again = start_server(target)
    assert ratings_of(again) == rated
    finished_in_backup = 0
    for table_id, record in records.items():
        table = httpx.get(f"{again.http}/api/tables/{table_id}", timeout=30).json()
        if table["status"] == "finished":
            finished_in_backup += 1
            assert httpx.get(f"{again.http}/api/tables/{table_id}/record", timeout=30).json() == record
    assert finished_in_backup >= 1  # the rated game at least
    assert f" {finished_in_backup} finished games' records verified" in restored.stdout


def test_a_restore_onto_a_database_in_use_is_refused(start_server: Callable[..., Server], database_url: str,
                                                     fresh_database: Callable[[str], str],
                                                     tmp_path: Path) -> None:
    source = start_server(database_url)
    table = source.create([bot("random"), bot("random")])
    backup_file = tmp_path / "kseri.backup"
    assert kseri("backup", str(backup_file), "--db", database_url).returncode == 0
    again = kseri("backup", str(backup_file), "--db", database_url)
    assert again.returncode == 1 and "exists already" in again.stderr

    target = fresh_database(database_url)
    live = start_server(target)
    live_table = live.create([human(), bot()])
    refused = kseri("restore", str(backup_file), "--db", target, "--replace")
    assert refused.returncode == 1
    assert "refused: another kseri serve is using the database" in refused.stderr
    # nothing changed: the live server goes on with its own table, and the backup's is not there
    assert httpx.get(f"{live.http}/api/tables/{live_table['table']['id']}", timeout=10).status_code == 200
    assert httpx.get(f"{live.http}/api/tables/{table['table']['id']}", timeout=10).status_code == 404

    live.stop()
    kept = kseri("restore", str(backup_file), "--db", target)
    assert kept.returncode == 1 and "already holds 1 tables and 0 accounts" in kept.stderr
    replaced = kseri("restore", str(backup_file), "--db", target, "--replace")
    assert replaced.returncode == 0, replaced.stdout + replaced.stderr
    after = start_server(target)
    assert httpx.get(f"{after.http}/api/tables/{live_table['table']['id']}", timeout=10).status_code == 404
    assert httpx.get(f"{after.http}/api/tables/{table['table']['id']}", timeout=10).status_code == 200


def test_a_file_that_is_no_backup_is_refused(tmp_path: Path, sqlite_url: str) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("not a backup")
    refused = kseri("restore", str(bogus), "--db", sqlite_url)
    assert refused.returncode == 1
    assert "is not a kseri backup (neither an SQLite file nor a pg_dump archive)" in refused.stderr


def test_a_pg_dump_older_than_the_server_is_refused_naming_the_package() -> None:
    from kseri.server.backup import BackupError, postgres_program

    with pytest.raises(BackupError) as refused:
        postgres_program("pg_dump", 99)
    assert str(refused.value).startswith("no pg_dump of PostgreSQL 99 or later")
    assert str(refused.value).endswith("install the postgresql-client-99 package")

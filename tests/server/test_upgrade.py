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

import httpx
from playerkit import Browser, Player
from serverkit import Server

from kseri.records import replay_record, verify_record

DATA = Path(__file__).parent / "data"


def test_a_release_database_upgrades_in_place(start_server: Callable[..., Server], tmp_path: Path) -> None:
    path = tmp_path / "kseri.db"
    shutil.copy(DATA / "release-0.1.0.db", path)
    known = json.loads((DATA / "release-0.1.0.json").read_text())
    before = sqlite3.connect(path)
    assert before.execute("SELECT version_num FROM alembic_version").fetchone() == ("0001",)
    counts = {name: before.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
              for name in ("tables", "seats", "rounds", "events")}
    before.close()

    server = start_server(f"sqlite+aiosqlite:///{path}")
    after = sqlite3.connect(path)
    assert after.execute("SELECT version_num FROM alembic_version").fetchone() == ("0002",)
    for name, count in counts.items():
        assert after.execute(f"SELECT count(*) FROM {name}").fetchone()[0] == count, name
    assert after.execute("SELECT count(*) FROM tables WHERE rated").fetchone() == (0,)
    assert after.execute("SELECT count(*) FROM seats WHERE user_id IS NOT NULL").fetchone() == (0,)
    after.close()

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

"""The lease's fencing number refuses a stale owner's commit (real PostgreSQL, two processes'
lease books in one test): nothing of the refused batch is written."""

from __future__ import annotations

import asyncio

import pytest
from clusterkit import fresh_services, sql

from kseri.rules import Rules
from kseri.server import db
from kseri.server.cluster import Elsewhere, Fenced, Leases
from kseri.server.protocol import ProtocolError
from kseri.server.room import GameTable
from kseri.server.seats import SeatState
from kseri.server.settings import ServerSettings
from kseri.server.workers import SearchPool


def test_a_commit_after_a_takeover_is_refused_by_the_fence() -> None:
    with fresh_services() as (database_url, _):
        asyncio.run(_fenced(database_url))


async def _fenced(database_url: str) -> None:
    store = await db.Store.open(database_url, shared=True)
    try:
        settings = ServerSettings(database_url)
        old, new = Leases(store, 0.5, me="old"), Leases(store, 0.5, me="new")
        seats = [SeatState("human", None, "Ana", "x" * 64), SeatState("human", None, None, None)]
        lost: list[str] = []
        fence = Fenced(old, await old.create("t1"), lambda _: lost.append("t1"))
        table, batch = GameTable.new("t1", Rules.from_spec("greek"), seats, casual=True, public=True,
                                     clock=None, store=store, settings=settings, search=SearchPool(1),
                                     fence=fence)
        await store.write(batch)
        with pytest.raises(Elsewhere):  # a live lease is not taken
            await new.acquire("t1")

        await asyncio.sleep(0.7)  # the old owner hangs past its lease: the new one takes over
        taken = await new.acquire("t1")
        assert taken is not None and taken.fence == 2 and new.takeovers == 1

        with pytest.raises(ProtocolError, match="could not store"):  # the old owner wakes and writes
            await table.take_seat(1, "Ben")
        assert lost == ["t1"]
        events = await sql(database_url, "SELECT count(*) AS n FROM events WHERE table_id = 't1'")
        seat = await sql(database_url, "SELECT name FROM seats WHERE table_id = 't1' AND seat = 1")
        assert events[0]["n"] == 0 and seat[0]["name"] is None
        assert await old.renew() == {"t1"}  # its renewal finds the fence moved on too

        stored = await store.load("t1")  # the new owner restores the table and writes
        assert stored is not None
        current = GameTable.restore(stored, store, settings, SearchPool(1),
                                    fence=Fenced(new, taken, lambda _: lost.append("again")))
        assert (await current.take_seat(1, "Ben"))[0] == 1
        events = await sql(database_url, "SELECT seq, kind FROM events WHERE table_id = 't1'")
        assert [(e["seq"], e["kind"]) for e in events] == [(1, "seat")] and lost == ["t1"]
    finally:
        await store.close()

"""The table registry's contract, run on both implementations: the local one (a single
process, on SQLite) and the leased one (a cluster's process, on the real PostgreSQL and Redis
that ``scripts/postgres`` and ``scripts/redis`` start). Each registry here is a process of its
own: stopping one and starting another on the same database is a restart (or, in a cluster, a
handover)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from clusterkit import fresh_services

from kseri.rules import Rules
from kseri.server import create_app, db
from kseri.server.cluster import Elsewhere
from kseri.server.limits import Limits
from kseri.server.metrics import Health, Metrics
from kseri.server.registry import Change, LeasedRegistry, TableRegistry, open_registry
from kseri.server.room import GameTable
from kseri.server.seats import SeatState
from kseri.server.settings import ServerSettings


@pytest.fixture(params=["local", "leased"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerSettings]:
    """A single process's settings on a fresh SQLite file, or a cluster's on a fresh PostgreSQL
    database and Redis database (their absence fails the test)."""
    quick = ServerSettings("", bot_delay=0.01, grace=0.05, ready_timeout=0.05, search_workers=0)
    if request.param == "local":
        yield replace(quick, database_url=f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}")
        return
    with fresh_services() as (database_url, redis_url):
        yield replace(quick, database_url=database_url, redis_url=redis_url)


@asynccontextmanager
async def running(settings: ServerSettings,
                  finished: list[str] | None = None) -> AsyncIterator[TableRegistry]:
    """A registry started as the server starts it (its own store: a process of its own)."""
    store = await db.Store.open(settings.database_url, shared=settings.redis_url is not None)

    async def over(table: GameTable) -> None:
        if finished is not None:
            finished.append(table.id)

    registry = open_registry(store, settings, over, create_app(settings))
    await registry.start(Metrics(), Health())
    try:
        yield registry
    finally:
        await registry.stop()
        await store.close()


def two_seats() -> list[SeatState]:
    """A person's seat, held, and a free one."""
    return [SeatState("human", None, "Ana", "x" * 64), SeatState("human", None, None, None)]


async def open_two(registry: TableRegistry) -> GameTable:
    """A public Greek table for two, its first seat held."""
    return await registry.create(Rules.preset("greek"), two_seats(), casual=True, public=True, clock=None)


async def until(check: Callable[[], Any], seconds: float = 30.0) -> None:
    """Wait for ``check()`` to hold (generously: the machine may be loaded)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def test_a_table_created_is_found_and_an_unknown_one_is_not(settings: ServerSettings) -> None:
    async def scenario() -> None:
        async with running(settings) as registry:
            table = await open_two(registry)
            assert await registry.get(table.id) is table
            assert table.table_json()["status"] == "waiting"
            assert await registry.get("no-such-table") is None
            assert await registry.get("x" * 41) is None
            assert registry.accepting

    asyncio.run(scenario())


def test_the_lobby_lists_public_tables_waiting_first(settings: ServerSettings) -> None:
    async def scenario() -> None:
        async with running(settings) as registry:
            rules = Rules.preset("greek")
            hidden = await registry.create(rules, two_seats(), casual=True, public=False, clock=None)
            first = await registry.create(rules, two_seats(), casual=True, public=True, clock=None)
            second = await registry.create(rules, two_seats(), casual=True, public=True, clock=30)
            shown: list[dict[str, Any]] = []

            async def look() -> None:
                nonlocal shown
                while len(shown) < 2:
                    shown, total = await registry.lobby(0, 50)
                    assert total == len(shown)
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(look(), 30)
            listed = {t["id"] for t in shown}
            assert listed == {first.id, second.id} and hidden.id not in listed
            page, total = await registry.lobby(1, 1)
            assert total == 2 and len(page) == 1

    asyncio.run(scenario())


def test_a_table_comes_back_with_its_events_after_a_restart(settings: ServerSettings) -> None:
    async def scenario() -> None:
        async with running(settings) as registry:
            table = await open_two(registry)
            assert (await table.take_seat(1, "Ben"))[0] == 1
            seq = table.state.seq
        async with running(settings) as again:
            back = await again.get(table.id)
            assert back is not None and back is not table
            assert [seat.name for seat in back.seats] == ["Ana", "Ben"] and back.state.seq == seq

    asyncio.run(scenario())


def test_a_finished_match_is_told_and_its_table_let_go_and_loaded_again(settings: ServerSettings) -> None:
    async def scenario() -> None:
        finished: list[str] = []
        async with running(settings, finished) as registry:
            bots = [SeatState("bot", "random", "one", None), SeatState("bot", "random", "two", None)]
            table = await registry.create(Rules.preset("greek"), bots, casual=True, public=True, clock=None)
            await until(lambda: finished == [table.id], 120)
            ended = await registry.get(table.id)  # (on a loaded machine a lease may have moved meanwhile)
            assert ended is not None and ended.state.status == "finished"
            await registry.sweep(-1.0)
            assert table.id not in registry.live
            back = await registry.get(table.id)
            assert back is not None and back is not ended
            assert back.state.status == "finished" and back.state.seq == ended.state.seq

    asyncio.run(scenario())


def test_a_table_nobody_joined_expires(settings: ServerSettings) -> None:
    async def scenario() -> None:
        expiring = replace(settings, limits=Limits(waiting_expiry=0.0))
        async with running(expiring) as registry:
            table = await open_two(registry)
            await asyncio.sleep(0.01)
            await registry.sweep(60.0)
            assert table.id not in registry.live and await registry.get(table.id) is None

    asyncio.run(scenario())


def test_a_change_to_accounts_is_heard_by_the_other_processes_alone(settings: ServerSettings,
                                                                     tmp_path: Path) -> None:
    async def scenario() -> None:
        apart = replace(settings, database_url=f"sqlite+aiosqlite:///{tmp_path / 'other.db'}")
        other_settings = settings if settings.redis_url is not None else apart  # one server per database
        async with running(settings) as one, running(other_settings) as other:
            heard_here: list[Change] = []
            heard_there: list[Change] = []
            one.listen(heard_here.append)
            other.listen(heard_there.append)
            change = {"op": "user-deleted", "user": "u1"}
            one.tell_peers(change)
            if isinstance(one, LeasedRegistry):  # a cluster: the other process hears it
                await until(lambda: heard_there)
                assert heard_there[0]["user"] == "u1" and heard_there[0]["op"] == "user-deleted"
            else:  # a single process: there is no other process to tell
                await asyncio.sleep(0.2)
                assert heard_there == []
            assert heard_here == []

    asyncio.run(scenario())


def test_a_table_another_process_holds_is_not_loaded_here() -> None:
    """Leased only: one owner at a time; a process that stops hands its tables over."""
    with fresh_services() as (database_url, redis_url):
        settings = ServerSettings(database_url, redis_url=redis_url, search_workers=0)

        async def scenario() -> None:
            async with running(settings) as owner:
                table = await owner.create(Rules.preset("greek"), two_seats(), casual=True, public=True,
                                           clock=None)
                assert isinstance(owner, LeasedRegistry)
                async with running(settings) as other:
                    with pytest.raises(Elsewhere) as moved:
                        await other.get(table.id)
                    assert moved.value.owner == owner.cluster.me
            async with running(settings) as heir:
                back = await heir.get(table.id)
                assert back is not None and back.seats[0].name == "Ana"

        asyncio.run(scenario())

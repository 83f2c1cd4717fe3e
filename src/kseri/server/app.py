"""The ASGI application, assembled: the store, the table registry and the players' layer
opened for its lifetime, the HTTP API's routers (``server/api/``), its error answers and its
middleware."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from kseri.server import moderation
from kseri.server.api import ROUTERS
from kseri.server.api.answers import HANDLERS
from kseri.server.api.pages import mount_assets
from kseri.server.api.tables import Allowances
from kseri.server.challenges import Challenges
from kseri.server.daily import Daily
from kseri.server.limits import BodyLimit, SecurityHeaders
from kseri.server.metrics import Health, Metrics, database_check
from kseri.server.players import Players
from kseri.server.puzzles import PuzzleCutter, PuzzleRoom
from kseri.server.registry import PassOn, open_registry, open_store
from kseri.server.room import GameTable
from kseri.server.schedule import Schedule, parse_schedule
from kseri.server.settings import ServerSettings
from kseri.server.throttles import Throttles
from kseri.server.tournaments import Tournaments


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the store, the tables (``app.state.tables``) and the players' layer
    (``app.state.players``) for the application's lifetime."""
    state = app.state
    settings: ServerSettings = state.settings
    store = await open_store(settings)

    async def match_over(table: GameTable) -> None:  # the players' layer rates it
        await state.players.match_over(table)

    async def may_talk(user: str) -> bool:  # table talk, unless a moderator muted the account
        return not await moderation.muted(store, user)

    tables = open_registry(store, settings, match_over, app)
    tables.may_talk = may_talk
    store.on_commit = state.metrics.observe_commit
    state.health.checks.append(database_check(store))
    state.players = Players(store, tables, state.allowances.throttles, state.allowances.tables)
    state.tables = tables
    state.daily = Daily(store, tables.search)
    state.challenges = Challenges(store)
    state.tournaments = Tournaments(store, tables)
    state.puzzles = PuzzleRoom(store, state.players)
    cutter = PuzzleCutter(state.puzzles, settings.puzzle_cuts)
    state.schedule = Schedule(store, state.tournaments, parse_schedule(settings.schedule))
    await tables.start(state.metrics, state.health)
    state.players.start()
    state.tournaments.start()
    cutter.start()
    state.schedule.start()
    try:
        yield
    finally:
        await state.schedule.stop()
        await cutter.stop()
        await state.tournaments.stop()
        await state.players.stop()
        await tables.stop()
        await store.close()
        await state.allowances.throttles.close()


def create_app(settings: ServerSettings) -> FastAPI:
    """The server's ASGI application."""
    app = FastAPI(title="kseri", version="1", lifespan=lifespan, exception_handlers=HANDLERS,
                  description="The kseri game server: tables, seats, the lobby and game records. "
                  "Play happens on the WebSocket /ws/tables/{id} (docs/protocol.md).")
    app.state.settings = settings
    app.state.metrics, app.state.health = Metrics(), Health()  # server/metrics.py
    app.state.allowances = Allowances(settings, Throttles(settings.redis_url))
    for router in ROUTERS:
        app.include_router(router)
    mount_assets(app)
    app.add_middleware(PassOn)
    app.add_middleware(BodyLimit, limit=settings.limits.max_body)
    app.add_middleware(SecurityHeaders)
    return app

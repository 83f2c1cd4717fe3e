"""The ASGI application: the HTTP API (tables, seats, lobby, records), the play WebSocket and
the web page."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketState

from kseri.agents import AGENTS
from kseri.records import record_problems
from kseri.rules import PRESET_SOURCES, PRESETS, Rules, RulesError
from kseri.server import db, players, wire
from kseri.server.cluster import RECONNECT, RESTART, TRY_AGAIN_LATER, Cluster, Elsewhere, Leases
from kseri.server.learn import router as learn_router
from kseri.server.limits import (
    BodyLimit,
    Counter,
    KeyedBuckets,
    SecurityHeaders,
    client_address,
    origin_allowed,
)
from kseri.server.metrics import Health, Metrics, cluster_check, database_check
from kseri.server.metrics import install as install_metrics
from kseri.server.protocol import ProtocolError
from kseri.server.relay import CUT_OFF, UNREACHABLE, ForwardTables, Relay
from kseri.server.resign import ResignRefused, resign
from kseri.server.room import Connection, GameTable, SeatState, hash_token, rematch_token
from kseri.server.settings import ServerSettings
from kseri.server.workers import SearchPool

log = logging.getLogger("kseri.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
"""Where the web page's files are (index.html and its assets)."""

PLACEHOLDER_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>kseri</title></head>
<body><h1>kseri server</h1><p>The web client is not installed; the server's API is at
<a href="/docs">/docs</a>.</p></body></html>"""


class ApiError(Exception):
    """An HTTP request refused: ``{"error": {"code", "message"}}`` (and ``field``, the part of
    the request at fault, when there is one) with a 4xx or 5xx status."""

    def __init__(self, status: int, code: str, message: str, *, field: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.field, self.retry_after = field, retry_after


# -- HTTP bodies ---------------------------------------------------------------------------------

class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


Name = Annotated[str, Field(min_length=1, max_length=40)]


class SeatSpec(_Body):
    """A seat asked for: a person's (optionally named) or a bot's of some level."""

    kind: Literal["human", "bot"]
    name: Name | None = None
    level: Annotated[str, Field(max_length=40)] | None = None


class CreateTable(_Body):
    """A new table."""

    rules: Annotated[str, Field(max_length=1000)] | dict[str, Any] = "greek"
    """A preset with overrides (``greek,jack_kseri=25``) or every option as an object."""
    seats: Annotated[list[SeatSpec], Field(min_length=2, max_length=6)] | None = None
    """One entry per seat; default: every seat for people. The creator takes the first person's."""
    clock: Annotated[int, Field(ge=1, le=3600)] | None = None
    """Seconds per play (``null``: no clock)."""
    casual: bool = True
    public: bool = True


class JoinTable(_Body):
    """Taking a seat."""

    seat: Annotated[int, Field(ge=0, le=5)] | None = None
    name: Name | None = None


class SeatOut(BaseModel):
    """A seat as everyone sees it."""

    seat: int
    kind: Literal["human", "bot"]
    name: str | None
    level: str | None
    taken: bool
    connected: bool
    ready: bool
    standin: bool


class TableOut(BaseModel):
    """A table as everyone sees it: public information only."""

    id: str
    rules: dict[str, Any]
    casual: bool
    public: bool
    clock: int | None
    status: Literal["waiting", "playing", "finished"]
    seats: list[SeatOut]
    totals: list[int]
    target: int
    round: int
    winner: int | None
    invite: str
    rematch: str | None


class SeatGrant(BaseModel):
    """A seat given to the caller, with the token that acts for it (keep it secret)."""

    table: TableOut
    seat: int | None
    token: str | None


class Lobby(BaseModel):
    """One page of the public tables with a free seat or a match to watch."""

    tables: list[TableOut]
    total: int
    """How many tables are listed in all."""
    offset: int


class RulesOut(BaseModel):
    """The presets' options and where each comes from."""

    presets: dict[str, dict[str, Any]]
    sources: dict[str, str]
    levels: list[str]
    """The bot levels, weakest first (the ``level`` a bot seat may take)."""


class Verdict(BaseModel):
    """What is wrong with a record, in ``kseri verify``'s words (nothing: it is sound)."""

    problems: list[str]


class ErrorDetail(BaseModel):
    """What went wrong."""

    code: str
    message: str
    field: str | None = None
    """The part of the request at fault (``rules.target``), when there is one."""


class ErrorOut(BaseModel):
    """An error answer."""

    error: ErrorDetail


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorOut} for status in statuses}


# -- the tables ------------------------------------------------------------------------------------

class Tables:
    """Every table the server holds: unfinished ones live, finished ones loaded on demand."""

    def __init__(self, store: db.Store, settings: ServerSettings, search: SearchPool) -> None:
        self.store = store
        self.settings = settings
        self.search = search
        self.live: dict[str, GameTable] = {}
        self._loading = asyncio.Lock()
        self.attach: Callable[[GameTable], None] = lambda table: None
        """Hooks each table as it opens (the players' layer rates rated matches)."""
        self.cluster: Cluster | None = None
        """In a cluster, the leases: a table is loaded only by the process holding its lease."""

    async def restore(self) -> None:
        """Bring back every unfinished table from the database."""
        for table_id in await self.store.unfinished():
            await self.get(table_id)

    async def get(self, table_id: str, gone: str | None = None) -> GameTable | None:
        """The table with this id, or ``None``; in a cluster, raises
        :class:`~kseri.server.cluster.Elsewhere` when another process holds it (and is not
        ``gone``: see :meth:`~kseri.server.cluster.Leases.acquire`)."""
        table = self.live.get(table_id)
        if table is not None:
            table.touched = time.monotonic()  # asked for: not let go while a connection joins it
            return table
        if len(table_id) > 40:
            return None
        async with self._loading:
            if table_id in self.live:
                return self.live[table_id]
            cluster, lease = self.cluster, None
            if cluster is not None:
                if cluster.draining:
                    raise Elsewhere(None)
                lease = await cluster.leases.acquire(table_id, gone)
                if lease is None:
                    return None
            try:
                stored = await self.store.load(table_id)
                restored = None if stored is None else GameTable.restore(stored, self.store, self.settings,
                                                                         self.search)
            except Exception:
                restored = None
                raise
            finally:
                if cluster is not None and restored is None:  # not held for nothing
                    with suppress(Exception):
                        await cluster.leases.release([table_id])
            if restored is None:
                return None
            table = restored
            if cluster is not None and lease is not None:
                cluster.leases.adopt(table, lease, lambda: cluster.lose(table))
            self.live[table_id] = table
            self.attach(table)
            table.start()
            return table

    async def create(self, body: CreateTable, *, rematch_of: str | None = None, seat_creator: bool = True,
                     rated: bool = False) -> tuple[GameTable, int | None, str | None]:
        """A new table; the creator takes its first person's seat (if any and ``seat_creator``)."""
        if self.cluster is not None and self.cluster.draining:
            raise ApiError(503, "restarting", "this server process is restarting; try again", retry_after=1)
        limit = self.settings.limits.max_live_tables
        if sum(table.state.status != "finished" for table in self.live.values()) >= limit:
            raise ApiError(503, "too-many-tables", "the server holds as many tables as it can; try again "
                           "in a few minutes", retry_after=60)
        try:
            given = body.rules
            rules = Rules.from_spec(given) if isinstance(given, str) else Rules.from_options(given)
        except RulesError as error:
            named = error.option is not None and not isinstance(body.rules, str)
            field = f"rules.{error.option}" if named else "rules"
            raise ApiError(422, "bad-rules", str(error), field=field) from None
        specs = body.seats or [SeatSpec(kind="human") for _ in range(rules.players)]
        if len(specs) != rules.players:
            raise ApiError(422, "bad-seats", f"these rules seat {rules.players} players, not {len(specs)}")
        seats = []
        for index, spec in enumerate(specs):
            if spec.kind == "bot":
                level = spec.level or "greedy"
                if level not in AGENTS:
                    raise ApiError(422, "bad-seats",
                                   f"unknown bot level {level!r}; the levels are: {', '.join(AGENTS)}")
                seats.append(SeatState("bot", level, spec.name or f"{level} bot", None))
            else:
                if spec.level is not None:
                    raise ApiError(422, "bad-seats", f"seat {index} is for a person: it has no level")
                seats.append(SeatState("human", None, None, None))
        creator = next((i for i, s in enumerate(seats) if s.kind == "human"), None) if seat_creator else None
        token = None
        if creator is not None:
            token = secrets.token_urlsafe(24)
            seats[creator].token_hash = hash_token(token)
            seats[creator].name = specs[creator].name or f"Player {creator + 1}"
        table_id = secrets.token_urlsafe(9)
        table, batch = GameTable.new(table_id, rules, seats, casual=body.casual, public=body.public,
                                     clock=body.clock, store=self.store, settings=self.settings,
                                     search=self.search, rematch_of=rematch_of, rated=rated)
        try:
            if self.cluster is not None:
                cluster = self.cluster
                lease = await cluster.leases.create(table_id)
                cluster.leases.adopt(table, lease, lambda: cluster.lose(table))
                assert table.fence is not None
                table.fence(batch)
            await self.store.write(batch)
        except Exception:
            if self.cluster is not None:
                self.cluster.leases.owned.pop(table_id, None)
            log.exception("could not store a new table")
            raise ApiError(503, "storage-unavailable", "the server cannot store new tables right now "
                           "(its database refused the write); try again later", retry_after=30) from None
        self.live[table_id] = table
        self.attach(table)
        table.start()
        return table, creator, token

    async def forget_idle(self, every: float) -> None:
        """Let go of finished tables nobody has watched for ``limits.finished_kept`` seconds
        (they load again from the database when asked for), so a long-running server's memory
        holds the tables in play; remove tables nobody joined within ``limits.waiting_expiry``."""
        while True:
            await asyncio.sleep(every)
            await self.sweep(self.settings.limits.finished_kept)

    async def sweep(self, after: float) -> None:
        """One pass of :meth:`forget_idle`."""
        now = time.monotonic()
        for table_id, table in list(self.live.items()):
            if table.idle(now, after):
                async with self._loading:  # asked for again meanwhile: loaded after its lease is let go
                    if not table.idle(now, after) or self.live.get(table_id) is not table:
                        continue
                    table.stop()
                    del self.live[table_id]
                    if self.cluster is not None:
                        with suppress(Exception):
                            await self.cluster.leases.release([table_id])
            elif table.unjoined(time.time(), self.settings.limits.waiting_expiry):
                try:
                    await self.store.delete_table(table_id)
                except Exception:
                    log.exception("could not remove the expired table %s", table_id)
                    continue
                table.stop()
                del self.live[table_id]
                if self.cluster is not None:
                    with suppress(Exception):
                        await self.cluster.leases.forget(table_id)

    def listed(self) -> list[GameTable]:
        """The lobby's tables: public ones with a free seat (never a rematch's reserved seats)
        or being played."""
        return [t for t in self.live.values() if t.public and t.state.status != "finished"
                and not (t.rematch_of and t.state.status == "waiting")]

    def close(self) -> None:
        """Stop every table's timers and the search workers."""
        for table in self.live.values():
            table.stop()
        self.search.close()


# -- the application -------------------------------------------------------------------------------

def create_app(settings: ServerSettings) -> FastAPI:
    """The server's ASGI application."""
    state: dict[str, Tables] = {}

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        store = await db.Store.open(settings.database_url, shared=settings.redis_url is not None)
        tables = Tables(store, settings, SearchPool(settings.search_workers, settings.limits.search_queue))

        async def open_rated(family: str, clock: int, rated: bool) -> GameTable:
            body = CreateTable(rules=family, clock=clock, casual=not rated, public=False)
            return (await tables.create(body, seat_creator=False, rated=rated))[0]

        store.on_commit = metrics.observe_commit
        metrics.live_tables.set_function(lambda: len(tables.live))
        health.checks.append(database_check(store))
        app.state.players = players.Players(store, tables.live, settings, open_rated, tables.search,
                                            table_allowance)
        tables.attach = app.state.players.attach
        state["tables"] = tables
        if settings.redis_url is None:
            await tables.restore()
        else:  # docs/server.md, Cluster: tables are taken as they are asked for, or orphaned
            cluster = tables.cluster = Cluster(Leases(store, settings.lease), tables.live, tables.get)
            relay = Relay(cluster, settings, tables_now, app=app, players=app.state.players)
            await relay.start()
            cluster.start()
            app.state.cluster, app.state.relay = cluster, relay
            metrics.count_takeovers(lambda: cluster.takeovers)
            health.checks.append(cluster_check(lambda: cluster.draining, relay.bus.redis))
            drain_on_sigterm(cluster, relay)
            log.warning("kseri cluster: this is process %s", cluster.me)
        sweep_every = max(1.0, min(60.0, settings.limits.waiting_expiry / 2, settings.limits.finished_kept))
        forgetting = asyncio.create_task(tables.forget_idle(every=sweep_every))
        app.state.players.start()
        try:
            yield
        finally:
            await app.state.players.stop()
            forgetting.cancel()
            if app.state.relay is not None:
                await app.state.cluster.drain()  # again after SIGTERM: what came in meanwhile
                await app.state.relay.stop()
                await app.state.cluster.stop()
            tables.close()
            await store.close()

    app = FastAPI(title="kseri", version="1", lifespan=lifespan,
                  description="The kseri game server: tables, seats, the lobby and game records. "
                  "Play happens on the WebSocket /ws/tables/{id} (docs/protocol.md).")
    app.state.cluster = app.state.relay = None
    """In a cluster (``--redis``): this process's leases and its relay (``server/cluster.py``)."""

    metrics, health = app.state.metrics, app.state.health = Metrics(), Health()  # server/metrics.py
    limits = settings.limits
    table_allowance = KeyedBuckets(limits.tables_per_minute / 60, limits.tables_burst)
    connection_allowance = KeyedBuckets(limits.connections_per_address / 60, limits.connections_per_address)
    sockets = Counter(limits.connections_per_address)
    players.install(app)
    install_metrics(app, metrics, health)

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, error: ApiError) -> JSONResponse:
        detail: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.field is not None:
            detail["field"] = error.field
        headers = {} if error.retry_after is None else {"Retry-After": str(max(1, round(error.retry_after)))}
        return JSONResponse({"error": detail}, status_code=error.status, headers=headers)

    @app.exception_handler(Elsewhere)
    async def _moving(_request: Request, _error: Elsewhere) -> JSONResponse:
        return JSONResponse({"error": {"code": "table-moving", "message": "the table is moving to another "
                                       "server process; try again in a moment"}},
                            status_code=503, headers={"Retry-After": "1"})

    @app.exception_handler(ProtocolError)
    async def _table_error(_request: Request, error: ProtocolError) -> JSONResponse:
        status = 503 if error.code == "server-error" else 409
        return JSONResponse({"error": {"code": error.code, "message": error.message}}, status_code=status)

    @app.exception_handler(DBAPIError)
    async def _unreachable_database(_request: Request, error: DBAPIError) -> JSONResponse:
        log.warning("an HTTP request could not reach the database: %s", error.orig or error)
        return JSONResponse({"error": {"code": "storage-unavailable", "message": "the server cannot reach "
                                       "its database right now; nothing was changed, try again later"}},
                            status_code=503, headers={"Retry-After": "5"})

    @app.exception_handler(RedisError)
    async def _unreachable_redis(_request: Request, error: RedisError) -> JSONResponse:
        log.warning("an HTTP request could not reach Redis: %s", error)
        return JSONResponse({"error": {"code": "cluster-unavailable", "message": UNREACHABLE}},
                            status_code=503, headers={"Retry-After": "5"})

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, _error: Exception) -> JSONResponse:
        log.exception("an HTTP request failed")
        return JSONResponse({"error": {"code": "server-error", "message": "the server failed to answer; "
                                       "nothing was changed"}}, status_code=500)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(part) for part in first["loc"][1:] or first["loc"])
        return JSONResponse({"error": {"code": "bad-request", "message": f"{where}: {first['msg']}",
                                       "field": where}}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = {404: "not-found", 405: "method-not-allowed"}.get(error.status_code, "http-error")
        return JSONResponse({"error": {"code": code, "message": str(error.detail)}},
                            status_code=error.status_code)

    def tables() -> Tables:
        return state["tables"]

    tables_now = tables

    async def table_or_404(table_id: str) -> GameTable:
        table = await tables().get(table_id)
        if table is None:
            raise ApiError(404, "no-such-table", f"there is no table {table_id!r}")
        return table

    @app.post("/api/tables", status_code=201, response_model=SeatGrant, responses=_errors(413, 422, 429, 503))
    async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
        """Open a table; the creator takes the first person's seat and gets its token."""
        address = client_address(request.scope)
        if not table_allowance.take(address):
            raise ApiError(429, "throttled", f"at most {limits.tables_per_minute:g} new tables a minute "
                           "from one address", retry_after=table_allowance.wait(address))
        table, seat, token = await tables().create(body)
        return {"table": table.table_json(), "seat": seat, "token": token}

    @app.get("/api/lobby", response_model=Lobby)
    async def lobby(offset: Annotated[int, Query(ge=0)] = 0,
                    limit: Annotated[int, Query(ge=1)] = 50) -> dict[str, Any]:
        """Public tables with a free seat first, then those being played (to watch), newest
        first, a page of ``limit`` at a time (at most the server's page size, 50 by default)."""
        limit = min(limit, limits.lobby_page)
        if app.state.relay is not None:  # every process's tables
            shown = await app.state.relay.lobby()
            return {"tables": shown[offset:offset + limit], "total": len(shown), "offset": offset}
        listed = tables().listed()
        listed.sort(key=lambda t: (t.state.status != "waiting", -t.created, t.id))
        page = [t.table_json() for t in listed[offset:offset + limit]]
        return {"tables": page, "total": len(listed), "offset": offset}

    @app.get("/api/tables/{table_id}", response_model=TableOut, responses=_errors(404))
    async def get_table(table_id: str) -> dict[str, Any]:
        """A table's public information."""
        return (await table_or_404(table_id)).table_json()

    @app.post("/api/tables/{table_id}/join", response_model=SeatGrant, responses=_errors(404, 409, 422))
    async def join_table(table_id: str, body: JoinTable) -> dict[str, Any]:
        """Take a free seat (the first one when none is named); the answer holds its token."""
        table = await table_or_404(table_id)
        if table.rematch_of is not None:
            raise ApiError(409, "seat-reserved", "this table is a rematch: its seats are kept for the "
                           "previous match's players, who take them through their own rematch link")
        try:
            seat, token = await table.take_seat(body.seat, body.name)
        except LookupError as error:
            raise ApiError(409, "seat-taken", str(error.args[0])) from None
        return {"table": table.table_json(), "seat": seat, "token": token}

    @app.post("/api/tables/{table_id}/rematch", response_model=SeatGrant, responses=_errors(401, 404, 409))
    async def rematch(table_id: str, authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        """After a match: a new table with the same rules and seats, each person's seat kept for
        them. The caller takes theirs; asking again gives the same seat and token."""
        table = await table_or_404(table_id)
        scheme, _, token = (authorization or "").partition(" ")
        seat = table.seat_of(token) if scheme.lower() == "bearer" and token else None
        if seat is None:
            raise ApiError(401, "bad-token", "send the seat's token as 'Authorization: Bearer TOKEN'")
        if table.state.status != "finished":
            raise ApiError(409, "not-finished", "the match is not over yet")
        async with table.lock:
            target = await tables().get(table.rematch) if table.rematch is not None else None
            if target is None:  # none yet, or it expired with nobody in it
                body = CreateTable(
                    rules=table.rules.options(), casual=table.casual, public=table.public, clock=table.clock,
                    seats=[SeatSpec(kind="bot", level=s.level, name=s.name) if s.kind == "bot" else
                           SeatSpec(kind="human") for s in table.seats])
                target, _, _ = await tables().create(body, rematch_of=table.id, seat_creator=False)
                await table.record_rematch(target.id)
        new_token = rematch_token(token, target.id)
        if target.seat_of(new_token) != seat:
            try:
                await target.take_seat(seat, table.seats[seat].name, token=new_token)
            except LookupError as error:
                raise ApiError(409, "seat-taken", str(error.args[0])) from None
        return {"table": target.table_json(), "seat": seat, "token": new_token}

    @app.post("/api/tables/{table_id}/resign", response_model=TableOut, responses=_errors(401, 404, 409))
    async def resign_match(table_id: str,
                           authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        """Resign the match for the caller's seat: it ends at once, won by the other side."""
        table = await table_or_404(table_id)
        scheme, _, token = (authorization or "").partition(" ")
        seat = table.seat_of(token) if scheme.lower() == "bearer" and token else None
        if seat is None:
            raise ApiError(401, "bad-token", "send the seat's token as 'Authorization: Bearer TOKEN'")
        try:
            await resign(table, seat)
        except ResignRefused as error:
            raise ApiError(409, "not-playing", str(error.args[0])) from None
        return table.table_json()

    @app.get("/api/tables/{table_id}/record", responses=_errors(404, 409))
    async def record(table_id: str) -> dict[str, Any]:
        """The game record once the match is over (``docs/records.md``)."""
        table = await table_or_404(table_id)
        if table.state.status != "finished":
            raise ApiError(409, "not-finished", "the match is not over yet")
        return table.record()

    @app.post("/api/records/verify", response_model=Verdict)
    async def verify(record: Annotated[Any, Body()]) -> dict[str, Any]:
        """Check a game record as ``kseri verify`` does (the deals against their seeds and
        fairness proofs, then the re-play); ``problems`` is empty for a sound record."""
        return {"problems": await asyncio.to_thread(record_problems, record)}

    @app.get("/api/rules", response_model=RulesOut)
    async def rules() -> dict[str, Any]:
        """Every preset's options and its source, and the bot levels."""
        presets = {name: preset.options() for name, preset in PRESETS.items()}
        return {"presets": presets, "sources": dict(PRESET_SOURCES), "levels": list(AGENTS)}

    @app.websocket("/ws/tables/{table_id}")
    async def play_socket(websocket: WebSocket, table_id: str) -> None:
        if not origin_allowed(dict(websocket.headers), settings.allowed_origins):
            await websocket.close(1008, "pages of another origin may not connect")
            return
        address = client_address(websocket.scope)
        if not connection_allowance.take(address) or not sockets.acquire(address):
            await websocket.close(1008, f"too many connections from one address (at most "
                                  f"{limits.connections_per_address} at once)")
            return
        try:
            with metrics.connections.track_inprogress():
                relay: Relay | None = app.state.relay
                try:
                    owner = None if relay is None else await relay.owner_elsewhere(table_id)
                except (DBAPIError, OSError, RedisError) as error:
                    await _unreachable(websocket, table_id, error)
                    return
                if relay is not None and owner is not None:
                    user = await app.state.players.websocket_user(websocket)
                    await relay.serve_socket(websocket, table_id, owner, user)
                else:
                    await _serve_socket(websocket, table_id)
        finally:
            sockets.release(address)

    async def _unreachable(websocket: WebSocket, table_id: str, error: Exception) -> None:
        """Close a new connection whose table could not be looked up: the database (or, in a
        cluster, Redis) is out of reach (its network cut, or it is down); the client tries again
        later, here or elsewhere."""
        log.warning("table %s: cannot serve a connection: %s", table_id, error)
        if websocket.client_state is WebSocketState.CONNECTING:
            await websocket.accept()
        why = CUT_OFF if isinstance(error, RedisError) else "the server cannot reach its database; reconnect"
        await websocket.close(TRY_AGAIN_LATER, why)

    async def _serve_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        try:
            table = await tables().get(table_id)
        except Elsewhere:  # in a cluster, it moved to another process a moment ago
            await websocket.close(RESTART, RECONNECT)
            return
        except (DBAPIError, OSError) as error:
            await _unreachable(websocket, table_id, error)
            return
        connection = Connection(websocket, settings, await app.state.players.websocket_user(websocket))
        handler = asyncio.current_task()
        assert handler is not None
        connection.on_drop = handler.cancel
        sender = asyncio.create_task(connection.send_forever())
        try:
            if table is None:
                missing = ProtocolError("no-such-table", f"there is no table {table_id!r:.60}")
                connection.send(missing.to_message())
                return
            await wire.serve(table, connection, _frames(websocket), settings)
        except asyncio.CancelledError:
            if not connection.dropped:
                raise
        finally:
            if table is not None:
                await table.leave(connection)
            await connection.finish(sender)

    app.include_router(learn_router)

    web_ready = (WEB_DIR / "index.html").is_file()
    if web_ready:
        app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

    @app.get("/", include_in_schema=False, response_model=None)
    async def index() -> HTMLResponse | FileResponse:
        if web_ready:
            return FileResponse(WEB_DIR / "index.html")
        return HTMLResponse(PLACEHOLDER_PAGE)

    @app.get("/t/{table_id}", include_in_schema=False, response_model=None)
    async def invite(table_id: str) -> HTMLResponse | FileResponse:
        return await index()

    for page in ("/account", "/p/{username}", "/leaderboard", "/leaderboard/{family}"):  # docs/players.md
        app.add_api_route(page, index, include_in_schema=False, response_model=None)

    app.add_middleware(ForwardTables, relay=lambda: app.state.relay)
    app.add_middleware(BodyLimit, limit=limits.max_body)
    app.add_middleware(SecurityHeaders)
    return app


def drain_on_sigterm(cluster: Cluster, relay: Relay) -> None:
    """On SIGTERM, hand this process's tables over and close its connections with the
    reconnect hint (1012) first, then let uvicorn stop as it would."""
    import signal

    loop = asyncio.get_running_loop()
    stop_server = signal.getsignal(signal.SIGTERM)

    async def drain() -> None:
        try:
            await cluster.drain()
            for link in list(relay.links.values()):
                link.connection.drop("the server process is restarting; reconnect", RESTART)
        finally:
            if callable(stop_server):
                stop_server(signal.SIGTERM, None)

    def on_sigterm() -> None:
        if not cluster.draining:
            task = asyncio.ensure_future(drain())
            task.add_done_callback(lambda _: None)
            log.warning("SIGTERM: handing %d tables over", len(cluster.leases.owned))

    loop.add_signal_handler(signal.SIGTERM, on_sigterm)


def _frames(websocket: WebSocket) -> wire.Receive:
    """A WebSocket's frames for :func:`wire.serve` (``None``: the peer is gone)."""

    async def receive() -> Mapping[str, Any] | None:
        frame = await websocket.receive()
        return None if frame["type"] == "websocket.disconnect" else frame

    return receive

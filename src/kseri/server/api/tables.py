"""The tables' HTTP routes (open, join, rematch, resign, the lobby, records, the rules) and the
play WebSocket ``/ws/tables/{id}`` (``docs/protocol.md``), over the process's
:class:`~kseri.server.registry.TableRegistry` (``app.state.tables``)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Header, Query, Request, Response, WebSocket
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from kseri.agents import AGENTS
from kseri.records import record_problems
from kseri.rules import PRESET_SOURCES, PRESETS, Rules, RulesError
from kseri.server import db, guests
from kseri.server.accounts import User, optional_user
from kseri.server.errors import ApiError, errors
from kseri.server.limits import client_address, origin_allowed
from kseri.server.moderation import (
    ModerationError,
    check_admitted,
    check_may_meet,
    check_may_play,
    check_may_watch,
    seated,
)
from kseri.server.registry import TableRegistry
from kseri.server.resign import ResignRefused, resign
from kseri.server.room import GameTable, run_to_end
from kseri.server.seats import SeatState, hash_token, rematch_token
from kseri.server.settings import ServerSettings
from kseri.server.throttles import SharedBuckets, Throttles

router = APIRouter()


class Allowances:
    """Each address's allowances, every process's through ``throttles``: new tables, new
    connections and connections open at once."""

    def __init__(self, settings: ServerSettings, throttles: Throttles) -> None:
        limits = settings.limits
        self.throttles = throttles
        self.tables = throttles.buckets("tables", limits.tables_per_minute / 60, limits.tables_burst)
        """Shared with the seeks, which open tables too (``server/pairing.py``)."""
        self.connections = throttles.buckets("connections", limits.connections_per_address / 60,
                                             limits.connections_per_address)
        self.sockets = throttles.counter("sockets", limits.connections_per_address)


async def _tables(request: Request) -> TableRegistry:
    """The process's tables (a coroutine: FastAPI runs a plain function dependency in a worker
    thread, a hop per request, measured in ``benchmarks/server.py``'s CPU per play)."""
    tables: TableRegistry = request.app.state.tables
    return tables


Tables = Annotated[TableRegistry, Depends(_tables)]
"""The process's tables (a route's parameter)."""


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
    pass_and_play: bool = False
    """Every person's seat for the creator, who plays them all on one device (the answer's
    ``tokens``; ``docs/protocol.md``, Pass and play). Never public."""


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
    tokens: dict[int, str] | None = None
    """A pass-and-play table's: every person's seat and its token."""


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


# -- opening a table -----------------------------------------------------------------------------

async def open_table(tables: TableRegistry, body: CreateTable, *, rematch_of: str | None = None,
                     seat_creator: bool = True, creator: User | None = None,
                     ) -> tuple[GameTable, int | None, str | None]:
    """A new table as ``body`` asks; the creator takes its first person's seat (if any and
    ``seat_creator``), bound to the ``creator``'s account when signed in: returns the table,
    that seat and its token. A pass-and-play table's other people's seats are taken too:
    :func:`pass_and_play_tokens`."""
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
    first = next((i for i, s in enumerate(seats) if s.kind == "human"), None) if seat_creator else None
    token = None
    if first is not None:
        token = secrets.token_urlsafe(24)
        seats[first].token_hash = hash_token(token)
        seats[first].name = specs[first].name or f"Player {first + 1}"
        seats[first].user = None if creator is None else creator.id
    table = await tables.create(rules, seats, casual=body.casual, public=body.public, clock=body.clock,
                                rematch_of=rematch_of)
    return table, first, token


async def _may_sit(request: Request, response: Response,
                   table: GameTable | None = None) -> tuple[User | None, str | None]:
    """The signed-in account asking for a seat, or ``None`` and the guest's identity (its cookie
    given on ``response``, ``server/guests.py``). Refused when the address or the guest is
    banned, the account banned, or (at ``table``) when it blocks, or is blocked by, an account
    or a guest seated there."""
    user = await optional_user(request)
    store = request.app.state.players.store
    token = None if user is not None else guests.guest_token(request)
    guest = None if token is None else guests.identity(token)
    await check_admitted(store, client_address(request.scope), guest)
    if user is not None:
        await check_may_play(store, user.id, rated=table is not None and table.rated)
    if table is not None:
        who = user.id if user is not None else str(guest)
        await check_may_meet(store, who, await seated(store, table.id))
    if token is not None:
        guests.remember(request, response, token)
    return user, guest


def pass_and_play_seats(body: CreateTable) -> CreateTable:
    """A pass-and-play table's body checked (two people at least) and made private."""
    people = sum(1 for spec in body.seats or [] if spec.kind == "human") if body.seats else None
    if people is not None and people < 2:
        raise ApiError(422, "bad-seats", "pass and play needs two people or more on the device")
    return body.model_copy(update={"public": False})


async def pass_and_play_tokens(table: GameTable, body: CreateTable, creator: int,
                               token: str) -> dict[int, str]:
    """Take every other person's seat of a new pass-and-play table (named as asked, or
    ``Player N``): each seat's token, the creator's included."""
    tokens = {creator: token}
    for index, seat in enumerate(table.seats):
        if not seat.taken:
            name = body.seats[index].name if body.seats else None
            taken, tokens[index] = await table.take_seat(index, name)
            assert taken == index
    return tokens


async def _table_or_404(tables: TableRegistry, table_id: str) -> GameTable:
    table = await tables.get(table_id)
    if table is None:
        raise ApiError(404, "no-such-table", f"there is no table {table_id!r}")
    return table


def _seat_of_bearer(table: GameTable, authorization: str | None) -> int:
    scheme, _, token = (authorization or "").partition(" ")
    seat = table.seat_of(token) if scheme.lower() == "bearer" and token else None
    if seat is None:
        raise ApiError(401, "bad-token", "send the seat's token as 'Authorization: Bearer TOKEN'")
    return seat


# -- the routes ----------------------------------------------------------------------------------

@router.post("/api/tables", status_code=201, response_model=SeatGrant,
             responses=errors(403, 413, 422, 429, 503))
async def create_table(body: CreateTable, request: Request, response: Response,
                       tables: Tables) -> dict[str, Any]:
    """Open a table; the creator takes the first person's seat and gets its token (a guest, its
    guest cookie too)."""
    address = client_address(request.scope)
    allowance: SharedBuckets = request.app.state.allowances.tables
    if wait := await allowance.take(address):
        raise ApiError(429, "throttled", f"at most {tables.settings.limits.tables_per_minute:g} new tables a "
                       "minute from one address", retry_after=wait)
    creator, guest = await _may_sit(request, response)
    if body.pass_and_play:
        body = pass_and_play_seats(body)
    table, seat, token = await open_table(tables, body, creator=creator)
    if guest is not None and seat is not None:
        await guests.bind(tables.store, table.id, seat, guest)
    tokens = None
    if body.pass_and_play and seat is not None and token is not None:
        tokens = await pass_and_play_tokens(table, body, seat, token)
    return {"table": table.table_json(), "seat": seat, "token": token, "tokens": tokens}


@router.get("/api/lobby", response_model=Lobby)
async def lobby(tables: Tables, offset: Annotated[int, Query(ge=0)] = 0,
                limit: Annotated[int, Query(ge=1)] = 50) -> dict[str, Any]:
    """Public tables with a free seat first, then those being played (to watch), newest
    first, a page of ``limit`` at a time (at most the server's page size, 50 by default)."""
    page, total = await tables.lobby(offset, min(limit, tables.settings.limits.lobby_page))
    return {"tables": page, "total": total, "offset": offset}


@router.get("/api/tables/{table_id}", response_model=TableOut, responses=errors(404))
async def get_table(table_id: str, tables: Tables) -> dict[str, Any]:
    """A table's public information."""
    return (await _table_or_404(tables, table_id)).table_json()


@router.post("/api/tables/{table_id}/join", response_model=SeatGrant, responses=errors(403, 404, 409, 422))
async def join_table(table_id: str, body: JoinTable, request: Request, response: Response,
                     tables: Tables) -> dict[str, Any]:
    """Take a free seat (the first one when none is named); the answer holds its token. A
    signed-in account's seat is its own, a guest's is noted as its guest's; either is refused
    when banned (or its address is), or when it blocks, or is blocked by, an account or a guest
    seated at the table."""
    table = await _table_or_404(tables, table_id)
    user, guest = await _may_sit(request, response, table)
    if table.rematch_of is not None:
        raise ApiError(409, "seat-reserved", "this table is a rematch: its seats are kept for the "
                       "previous match's players, who take them through their own rematch link")

    async def seat_and_bind() -> tuple[int, str]:
        seat, token = await table.take_seat(body.seat, body.name)
        if user is not None:
            await request.app.state.players.claim(user, [(table.id, token)])
        elif guest is not None:
            await guests.bind(tables.store, table.id, seat, guest)
        return seat, token

    try:
        seat, token = await run_to_end(seat_and_bind())
    except LookupError as error:
        raise ApiError(409, "seat-taken", str(error.args[0])) from None
    return {"table": table.table_json(), "seat": seat, "token": token}


@router.post("/api/tables/{table_id}/rematch", response_model=SeatGrant, responses=errors(401, 403, 404, 409))
async def rematch(table_id: str, request: Request, tables: Tables,
                  authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """After a match: a new table with the same rules and seats, each person's seat kept for
    them. The caller takes theirs; asking again gives the same seat and token. Refused, as a
    join is, to a banned account or between accounts one of which blocks the other."""
    table = await _table_or_404(tables, table_id)
    seat = _seat_of_bearer(table, authorization)
    token = (authorization or "").partition(" ")[2]
    if table.state.status != "finished":
        raise ApiError(409, "not-finished", "the match is not over yet")
    guest = await _may_rematch(request, table, seat)

    async def open_and_sit() -> GameTable:
        async with table.lock:
            target = await tables.get(table.rematch) if table.rematch is not None else None
            if target is None:  # none yet, or it expired with nobody in it
                body = CreateTable(
                    rules=table.rules.options(), casual=table.casual, public=table.public, clock=table.clock,
                    seats=[SeatSpec(kind="bot", level=s.level, name=s.name) if s.kind == "bot" else
                           SeatSpec(kind="human") for s in table.seats])
                target, _, _ = await open_table(tables, body, rematch_of=table.id, seat_creator=False)
                await table.record_rematch(target.id)
        if target.seat_of(rematch_token(token, target.id)) != seat:
            await target.take_seat(seat, table.seats[seat].name, token=rematch_token(token, target.id))
            if guest is not None:
                await guests.bind(tables.store, target.id, seat, guest)
        return target

    try:
        target = await run_to_end(open_and_sit())
    except LookupError as error:
        raise ApiError(409, "seat-taken", str(error.args[0])) from None
    return {"table": target.table_json(), "seat": seat, "token": rematch_token(token, target.id)}


async def _may_rematch(request: Request, table: GameTable, seat: int) -> str | None:
    """Refuse a rematch as :func:`_may_sit` refuses a join: the address banned, the seat's
    account (else the caller's, when signed in) banned, or its guest, or either blocking, or
    blocked by, another account or guest seated at ``table``. Returns the seat's guest, if a
    guest held it."""
    user = table.seats[seat].user
    if user is None:
        signed_in = await optional_user(request)
        user = None if signed_in is None else signed_in.id
    store = request.app.state.players.store
    async with store.engine.connect() as connection:
        guest = await connection.scalar(select(db.seats.c.guest_id).where(
            db.seats.c.table_id == table.id, db.seats.c.seat == seat))
    await check_admitted(store, client_address(request.scope), None if user is not None else guest)
    if user is not None:
        await check_may_play(store, user, rated=False)  # a rematch is casual: a rated ban allows it
    who = user or guest
    if who is not None:
        await check_may_meet(store, who, await seated(store, table.id))
    return None if user is not None else guest


@router.post("/api/tables/{table_id}/resign", response_model=TableOut, responses=errors(401, 404, 409))
async def resign_match(table_id: str, tables: Tables,
                       authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """Resign the match for the caller's seat: it ends at once, won by the other side."""
    table = await _table_or_404(tables, table_id)
    seat = _seat_of_bearer(table, authorization)
    try:
        await run_to_end(resign(table, seat))
    except ResignRefused as error:
        raise ApiError(409, "not-playing", str(error.args[0])) from None
    return table.table_json()


@router.get("/api/tables/{table_id}/record", responses=errors(404, 409))
async def record(table_id: str, tables: Tables) -> dict[str, Any]:
    """The game record once the match is over (``docs/records.md``)."""
    table = await _table_or_404(tables, table_id)
    if table.state.status != "finished":
        raise ApiError(409, "not-finished", "the match is not over yet")
    return table.record()


@router.post("/api/records/verify", response_model=Verdict)
async def verify(record: Annotated[Any, Body()]) -> dict[str, Any]:
    """Check a game record as ``kseri verify`` does (the deals against their seeds and
    fairness proofs, then the re-play); ``problems`` is empty for a sound record."""
    return {"problems": await asyncio.to_thread(record_problems, record)}


@router.get("/api/rules", response_model=RulesOut)
async def rules() -> dict[str, Any]:
    """Every preset's options and its source, and the bot levels."""
    presets = {name: preset.options() for name, preset in PRESETS.items()}
    return {"presets": presets, "sources": dict(PRESET_SOURCES), "levels": list(AGENTS)}


@router.websocket("/ws/tables/{table_id}")
async def play_socket(websocket: WebSocket, table_id: str) -> None:
    """Play or watch a table (``docs/protocol.md``): served here or relayed to its owner."""
    state = websocket.app.state
    settings: ServerSettings = state.settings
    if not origin_allowed(dict(websocket.headers), settings.allowed_origins):
        await websocket.close(1008, "pages of another origin may not connect")
        return
    user = await state.players.websocket_user(websocket) or guests.guest_of(websocket)
    if user is not None and len(table_id) <= 40:
        try:
            await check_may_watch(state.players.store, user, table_id)
        except ModerationError as error:
            await websocket.close(1008, str(error))
            return
    address = client_address(websocket.scope)
    allowances: Allowances = state.allowances
    if await allowances.connections.take(address) or not await allowances.sockets.acquire(address):
        await websocket.close(1008, f"too many connections from one address (at most "
                              f"{settings.limits.connections_per_address} at once)")
        return
    try:
        with state.metrics.connections.track_inprogress():
            await state.tables.serve_socket(websocket, table_id, state.players.websocket_user)
    finally:
        allowances.sockets.release(address)

"""The tournaments' HTTP routes (``server/tournaments.py``, ``docs/events.md``): the list,
creating one, joining, withdrawing, the organiser's start and delete, and one tournament's
page data (entrants, rounds, tables, standings, the viewer's table), also live over the
WebSocket ``/ws/tournaments/{id}``."""

from __future__ import annotations

import asyncio
import json
from contextlib import suppress
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Response, WebSocket
from pydantic import BaseModel, ConfigDict, Field, model_validator
from starlette.websockets import WebSocketDisconnect

from kseri.server.accounts import CheckedUser, optional_user
from kseri.server.api.tables import Allowances
from kseri.server.errors import ApiError, errors
from kseri.server.limits import client_address, origin_allowed
from kseri.server.settings import ServerSettings
from kseri.server.tournaments import (
    MAX_ARENA_MINUTES,
    MAX_ROUNDS,
    MAX_SHOW_WITHIN,
    MAX_START_DELAY,
    MIN_ARENA_MINUTES,
    MIN_SHOW_WITHIN,
    Tournaments,
)

router = APIRouter()


class NewTournament(BaseModel):
    """A tournament to create."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=80)]
    rules: Annotated[str, Field(min_length=1, max_length=200)] = "greek"
    format: Literal["swiss", "duplicate", "mirrored", "arena"] = "swiss"
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] = 3
    starts_in: Annotated[float, Field(ge=0, le=MAX_START_DELAY)] = 300
    """Seconds from now to the start."""
    clock: Annotated[int, Field(ge=5, le=600)] | None = None
    """Seconds per move (as a table's clock); ``None``: no clock."""
    public: bool = True
    show_within: Annotated[int, Field(ge=MIN_SHOW_WITHIN, le=MAX_SHOW_WITHIN)] | None = None
    """Seconds a player has to come to their table after a round starts, or lose that round by
    forfeit (withdrawn after two); ``None``: no forfeits (the stand-in plays an absent seat)."""
    minutes: Annotated[int, Field(ge=MIN_ARENA_MINUTES, le=MAX_ARENA_MINUTES)] | None = None
    """An arena's length (required for an arena, refused otherwise)."""
    rated: bool = False
    """Its games count for the family's rating (a family's rule set; no one banned from rated play)."""
    bot: Annotated[str, Field(min_length=1, max_length=16)] | None = None
    """The level of a bot that plays whoever would get a bye (Swiss and duplicate); ``None``: a bye."""

    @model_validator(mode="after")
    def _arena_length(self) -> NewTournament:
        if (self.format == "arena") != (self.minutes is not None):
            raise ValueError("an arena states its length in minutes, and only an arena does")
        return self


def _tournaments(request: Request) -> Tournaments:
    found: Tournaments = request.app.state.tournaments
    return found


@router.get("/api/tournaments")
async def listing(request: Request) -> dict[str, Any]:
    """The public tournaments: open and under way first, then the latest finished."""
    return {"tournaments": await _tournaments(request).listing()}


@router.post("/api/tournaments", status_code=201, responses=errors(401, 403, 409, 422, 429))
async def create(body: NewTournament, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Create a tournament (a signed-in player, entered as its first player)."""
    return await _tournaments(request).create(user, body.name, body.rules, body.format, body.rounds,
                                              body.starts_in, body.clock, body.public, body.show_within,
                                              body.minutes, rated=body.rated, bot=body.bot)


@router.get("/api/tournaments/{tournament_id}", responses=errors(404))
async def show(tournament_id: str, request: Request) -> Response:
    """One tournament: entrants, rounds and their tables, standings, the viewer's own table."""
    viewer = await optional_user(request)
    text = await _tournaments(request).show(tournament_id, viewer.id if viewer else None)
    return Response(text, media_type="application/json")


@router.post("/api/tournaments/{tournament_id}/join", status_code=204, responses=errors(401, 403, 404, 409))
async def join(tournament_id: str, user: CheckedUser, request: Request) -> Response:
    """Enter the tournament (before it starts)."""
    await _tournaments(request).join(tournament_id, user)
    return Response(status_code=204)


@router.post("/api/tournaments/{tournament_id}/withdraw", status_code=204,
             responses=errors(401, 403, 404, 409))
async def withdraw(tournament_id: str, user: CheckedUser, request: Request) -> Response:
    """Leave the tournament (after the start: paired no more)."""
    await _tournaments(request).withdraw(tournament_id, user)
    return Response(status_code=204)


@router.post("/api/tournaments/{tournament_id}/start", status_code=204, responses=errors(401, 403, 404, 409))
async def start(tournament_id: str, user: CheckedUser, request: Request) -> Response:
    """The organiser starts the tournament now."""
    await _tournaments(request).begin(tournament_id, user)
    return Response(status_code=204)


@router.delete("/api/tournaments/{tournament_id}", status_code=204, responses=errors(401, 403, 404, 409))
async def delete(tournament_id: str, user: CheckedUser, request: Request) -> Response:
    """The organiser deletes a tournament that has not started."""
    await _tournaments(request).delete(tournament_id, user)
    return Response(status_code=204)


@router.websocket("/ws/tournaments/{tournament_id}")
async def live(websocket: WebSocket, tournament_id: str) -> None:
    """A tournament's page data pushed live: the same JSON as ``GET /api/tournaments/{id}``
    (for the viewer its session cookie signs in) at once and after each change (a join, a
    round paired, a result, the end), on whichever process the change happened. The client
    sends nothing; a tournament deleted or missing sends ``{"error": ...}`` and closes."""
    state = websocket.app.state
    settings: ServerSettings = state.settings
    if not origin_allowed(dict(websocket.headers), settings.allowed_origins):
        await websocket.close(1008, "pages of another origin may not connect")
        return
    address = client_address(websocket.scope)
    allowances: Allowances = state.allowances
    if not allowances.connections.take(address) or not allowances.sockets.acquire(address):
        await websocket.close(1008, f"too many connections from one address (at most "
                              f"{settings.limits.connections_per_address} at once)")
        return
    try:
        viewer = await state.players.websocket_user(websocket)
        await websocket.accept()
        await _push(websocket, state.tournaments, tournament_id, viewer)
    finally:
        allowances.sockets.release(address)


async def _push(websocket: WebSocket, tournaments: Tournaments, tournament_id: str,
                viewer: str | None) -> None:
    """Send the page data now and after each change until the client leaves."""
    async def leaving() -> None:
        with suppress(WebSocketDisconnect):
            while True:
                await websocket.receive_text()

    left = asyncio.ensure_future(leaving())
    try:
        with tournaments.watch(tournament_id[:24]) as changed:
            while not left.done():
                changed.clear()
                try:
                    text = await tournaments.show(tournament_id, viewer)
                except ApiError as error:
                    await websocket.send_text(json.dumps({"error": {"code": error.code,
                                                                    "message": error.message}}))
                    await websocket.close(1000)
                    return
                await websocket.send_text(text)
                waiting = asyncio.ensure_future(changed.wait())
                await asyncio.wait({waiting, left}, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
    except (WebSocketDisconnect, RuntimeError):
        return  # the client left while a message was on its way
    finally:
        left.cancel()

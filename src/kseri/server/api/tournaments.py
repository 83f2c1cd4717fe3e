"""The tournaments' HTTP routes (``server/tournaments.py``, ``docs/events.md``): the list,
creating one, joining, withdrawing, the organiser's start and delete, and one tournament's
page data (entrants, rounds, tables, standings, the viewer's table)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from kseri.server.accounts import CheckedUser, optional_user
from kseri.server.errors import errors
from kseri.server.tournaments import MAX_ROUNDS, MAX_START_DELAY, Tournaments

router = APIRouter()


class NewTournament(BaseModel):
    """A tournament to create."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=80)]
    rules: Annotated[str, Field(min_length=1, max_length=200)] = "greek"
    format: Literal["swiss", "duplicate"] = "swiss"
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] = 3
    starts_in: Annotated[float, Field(ge=0, le=MAX_START_DELAY)] = 300
    """Seconds from now to the start."""
    clock: Annotated[int, Field(ge=5, le=600)] | None = None
    """Seconds per move (as a table's clock); ``None``: no clock."""
    public: bool = True


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
                                              body.starts_in, body.clock, body.public)


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

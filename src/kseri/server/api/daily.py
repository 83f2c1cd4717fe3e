"""The daily deal's HTTP routes (``server/daily.py``, ``docs/events.md``): the day and its
commitment, starting an attempt, playing it, its score beside the master's, the ladder, the
records once allowed, and a player's daily history and streak."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from kseri.server import accounts
from kseri.server.accounts import checked_user, optional_user
from kseri.server.daily import FAMILIES, Attempt, Daily
from kseri.server.errors import ApiError, errors

router = APIRouter()


class StartDaily(BaseModel):
    """Starting a daily attempt (a guest may give a name; an account plays under its own)."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=40)] | None = None


class PlayCard(BaseModel):
    """The player's card."""

    model_config = ConfigDict(extra="forbid")
    card: Annotated[str, Field(min_length=2, max_length=4)]


def _daily(request: Request) -> Daily:
    daily: Daily = request.app.state.daily
    return daily


def _bearer(authorization: str | None) -> str | None:
    scheme, _, token = (authorization or "").partition(" ")
    return token if scheme.lower() == "bearer" and token else None


async def _own(request: Request, attempt_id: str, authorization: str | None) -> Attempt:
    if len(attempt_id) > 24:
        raise ApiError(404, "no-such-attempt", "there is no such daily attempt")
    return await _daily(request).attempt(attempt_id, _bearer(authorization))


async def _shown(daily: Daily, attempt: Attempt) -> dict[str, Any]:
    state = daily.state(attempt)
    if attempt.finished:
        state["score"] = await daily.score(attempt)
    return state


@router.get("/api/daily")
async def today(request: Request) -> dict[str, Any]:
    """Today's dailies: each family's commitment and, for a signed-in player, whether played."""
    daily = _daily(request)
    day = daily.today()
    return {"day": day, "dailies": [await daily.day(day, family) for family in FAMILIES]}


@router.get("/api/daily/players/{username}", responses=errors(404))
async def history(username: str, request: Request) -> dict[str, Any]:
    """A player's ranked dailies (today's only to the player) and streak."""
    daily = _daily(request)
    async with daily.store.engine.connect() as connection:
        row = (await connection.execute(select(accounts.users.c.id, accounts.users.c.username).where(
            accounts.users.c.username_key == accounts.username_key(username[:40])))).first()
    if row is None:
        raise ApiError(404, "no-such-player", f"there is no player {username!r}")
    viewer = await optional_user(request)
    found = await daily.history(row[0])
    if viewer is None or viewer.id != row[0]:
        found["history"] = [e for e in found["history"] if e["day"] != daily.today()]
    return {"username": row[1]} | found


@router.get("/api/daily/attempts/{attempt_id}", responses=errors(401, 404))
async def attempt(attempt_id: str, request: Request,
                  authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """The player's own attempt as it stands (and its score once finished)."""
    return await _shown(_daily(request), await _own(request, attempt_id, authorization))


@router.post("/api/daily/attempts/{attempt_id}/play", responses=errors(401, 404, 409, 422))
async def play(attempt_id: str, body: PlayCard, request: Request,
               authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """Play a card; the bots answer at once; the attempt as it then stands."""
    daily = _daily(request)
    attempt = await _own(request, attempt_id, authorization)
    await daily.play(attempt, body.card)
    return await _shown(daily, attempt)


@router.get("/api/daily/attempts/{attempt_id}/record", responses=errors(403, 404))
async def record(attempt_id: str, request: Request,
                 authorization: Annotated[str | None, Header()] = None) -> list[dict[str, Any]]:
    """An attempt's deals as records (its owner's once finished; everyone's once the day closes,
    with the day's secret for ``kseri verify``)."""
    if len(attempt_id) > 24:
        raise ApiError(404, "no-such-attempt", "there is no such daily attempt")
    user = await optional_user(request)
    return await _daily(request).record(attempt_id, user.id if user else None, _bearer(authorization))


@router.get("/api/daily/attempts/{first}/versus/{second}", responses=errors(403, 404, 409))
async def versus(first: str, second: str, request: Request,
                 authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """Two attempts at the same deals compared deal by deal: the plays side by side, where the
    players parted, who gained (once both are visible to the caller: after the day's close, or
    both its own)."""
    if len(first) > 24 or len(second) > 24:
        raise ApiError(404, "no-such-attempt", "there is no such daily attempt")
    user = await optional_user(request)
    return await _daily(request).versus(first, second, user.id if user else None, _bearer(authorization))


@router.get("/api/daily/{day}/{family}", responses=errors(404, 409))
async def day(day: str, family: str, request: Request) -> dict[str, Any]:
    """A day's daily: open (its commitment) or closed (and its secret)."""
    return await _daily(request).day(day, family)


@router.post("/api/daily/{day}/{family}/start", status_code=201, responses=errors(403, 404, 409))
async def start(day: str, family: str, request: Request,
                body: Annotated[StartDaily | None, Body()] = None) -> dict[str, Any]:
    """Start the day's set: ranked for a signed-in player (once a day), unranked for a guest.
    Returns the attempt and its token (send it as ``Authorization: Bearer TOKEN``)."""
    daily = _daily(request)
    user = await checked_user(request) if await optional_user(request) is not None else None
    attempt, token = await daily.start(day, family, (user.id, user.username) if user else None,
                                       body.name if body else None)
    return daily.state(attempt) | {"token": token}


@router.get("/api/daily/{day}/{family}/ladder", responses=errors(403, 404, 409))
async def ladder(day: str, family: str, request: Request,
                 authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """The day's ladder: secret to whoever has not finished the day's set (an account, or a
    guest sending its attempt's token), until it closes."""
    user = await optional_user(request)
    return await _daily(request).ladder(day, family, user.id if user else None, _bearer(authorization))

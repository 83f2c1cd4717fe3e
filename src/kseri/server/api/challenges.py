"""Duplicate challenges' HTTP routes (``server/challenges.py``, ``docs/events.md``): making a
challenge (to a player by name, or open), the account's invitations and challenges, accepting
or declining, its author withdrawing it, playing one's set, both sets side by side once both are
finished, and each side's deals as records once it is over. Accounts only: a guest is answered
``401 not-signed-in``."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from kseri.server.accounts import checked_user, optional_user, signed_in
from kseri.server.challenges import DEALS, HOURS, Challenges
from kseri.server.errors import errors

router = APIRouter()


class NewChallenge(BaseModel):
    """A challenge: to a player by name (none: open to anyone), its rules, deals and hours."""

    model_config = ConfigDict(extra="forbid")
    opponent: Annotated[str, Field(min_length=1, max_length=40)] | None = None
    rules: Annotated[str, Field(min_length=1, max_length=20)] = "greek"
    deals: Annotated[int, Field(ge=DEALS[0], le=DEALS[1])] = 8
    hours: Annotated[int, Field(ge=HOURS[0], le=HOURS[1])] = 48
    rated: bool = False
    """Whether the result counts for the family's rating (casual unless told)."""


class PlayCard(BaseModel):
    """The player's card."""

    model_config = ConfigDict(extra="forbid")
    card: Annotated[str, Field(min_length=2, max_length=4)]


def _challenges(request: Request) -> Challenges:
    found: Challenges = request.app.state.challenges
    return found


@router.post("/api/challenges", status_code=201, responses=errors(401, 403, 404, 422, 429))
async def create(body: NewChallenge, request: Request) -> dict[str, Any]:
    """Make a challenge (the deals are committed to at once; the secret is shown when it is over)."""
    user = await checked_user(request)
    return await _challenges(request).create(user, body.opponent, body.rules, body.deals, body.hours,
                                              body.rated)


@router.get("/api/challenges", responses=errors(401))
async def mine(request: Request) -> dict[str, Any]:
    """The account's invitations, its challenges (newest first) and open challenges it may take."""
    return await _challenges(request).mine(await signed_in(request))


@router.get("/api/challenges/{challenge_id}", responses=errors(404))
async def show(challenge_id: str, request: Request) -> dict[str, Any]:
    """A challenge: its state, the players' progress, and what the caller may see of results."""
    user = await optional_user(request)
    return await _challenges(request).show(challenge_id, user.id if user else None)


@router.post("/api/challenges/{challenge_id}/accept", responses=errors(401, 403, 404, 409))
async def accept(challenge_id: str, request: Request) -> dict[str, Any]:
    """Accept a challenge (the named opponent, or anyone but its author when it is open)."""
    return await _challenges(request).answer(challenge_id, await checked_user(request), accept=True)


@router.post("/api/challenges/{challenge_id}/decline", responses=errors(401, 403, 404, 409))
async def decline(challenge_id: str, request: Request) -> dict[str, Any]:
    """Decline a challenge made to the caller."""
    return await _challenges(request).answer(challenge_id, await checked_user(request), accept=False)


@router.post("/api/challenges/{challenge_id}/withdraw", responses=errors(401, 403, 404, 409))
async def withdraw(challenge_id: str, request: Request) -> dict[str, Any]:
    """Withdraw a challenge (its author, before the other side has started playing)."""
    return await _challenges(request).withdraw(challenge_id, await checked_user(request))


@router.get("/api/challenges/{challenge_id}/records/{side}", response_class=Response,
            responses={200: {"content": {"application/x-ndjson": {}}}, **errors(404, 409, 422)})
async def records(challenge_id: str, side: Literal["author", "opponent"], request: Request) -> Response:
    """One side's finished deals as game records with the revealed secret, once the challenge is
    over: a JSON Lines file (a download) that ``kseri verify`` checks."""
    found = await _challenges(request).records(challenge_id, side)
    name = f"challenge-{challenge_id[:24]}-{side}.jsonl"  # the id is a known challenge's: plain hex
    return Response("".join(json.dumps(record) + "\n" for record in found), media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.post("/api/challenges/{challenge_id}/start", responses=errors(401, 403, 404, 409))
async def start(challenge_id: str, request: Request) -> dict[str, Any]:
    """Start (or resume) the caller's set: the deal in play from the player's seat."""
    return await _challenges(request).start(challenge_id, await checked_user(request))


@router.post("/api/challenges/{challenge_id}/play", responses=errors(401, 403, 404, 409, 422))
async def play(challenge_id: str, body: PlayCard, request: Request) -> dict[str, Any]:
    """Play a card of the caller's set; the bots answer at once; the set as it then stands."""
    return await _challenges(request).play(challenge_id, await checked_user(request), body.card)


@router.get("/api/challenges/{challenge_id}/versus", responses=errors(403, 404, 409))
async def versus(challenge_id: str, request: Request) -> dict[str, Any]:
    """Both sets side by side, deal by deal: the plays, where the players parted, who gained."""
    user = await optional_user(request)
    return await _challenges(request).versus(challenge_id, user.id if user else None)

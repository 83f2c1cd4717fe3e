"""Puzzles (``docs/analysis.md``): the next puzzle near the player's rating, the daily puzzle, the
failed ones to retry, an answer judged (rated for accounts, unrated for guests), a player's puzzle
rating, and a finished game's mistakes made into puzzles; the work is ``server/puzzles.py``'s."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from kseri.server.accounts import AccountError, checked_user, errors, optional_user, signed_in
from kseri.server.puzzles import PuzzleRoom, outcome_json, shown

router = APIRouter(tags=["puzzles"])

Family = Annotated[str | None, Query(max_length=40, pattern="^[a-z-]+$")]
"""A rule family to choose puzzles from (``greek``, ``pisti``...); none: every family."""


class AnswerIn(BaseModel):
    """The card chosen, as text (``"JD"``)."""

    card: str = Field(max_length=8)


async def _room(request: Request) -> PuzzleRoom:
    """The server's :class:`PuzzleRoom`, opened on first use."""
    state = request.app.state
    if getattr(state, "puzzles", None) is None:
        state.puzzles = PuzzleRoom(state.players.store, state.players)
    room: PuzzleRoom = state.puzzles
    return await room.ready()


async def _guest_refused(request: Request, what: str) -> str:
    user = await optional_user(request)
    if user is None:
        raise AccountError(401, "guest", f"a guest has no {what}: sign in to keep a puzzle rating")
    return user.id


@router.get("/api/puzzles/next", responses=errors(404))
async def next_puzzle(request: Request, skip: Annotated[str, Query(max_length=2000)] = "",
                      family: Family = None) -> dict[str, Any]:
    """The next puzzle (of ``family``, when named): an account's own mistakes first, then the
    untried puzzle nearest its rating; a guest's nearest 1500, not among ``skip`` (comma-separated ids)."""
    user = await optional_user(request)
    room = await _room(request)
    puzzle = await room.next_for(None if user is None else user.id, [s for s in skip.split(",") if s], family)
    return shown(puzzle)


@router.get("/api/puzzles/families")
async def families(request: Request) -> dict[str, Any]:
    """The rule families with puzzles, and how many each has (the page's chooser)."""
    counts = (await _room(request)).families()
    return {"families": [{"family": name, "puzzles": count} for name, count in counts.items()]}


@router.get("/api/puzzles/daily", responses=errors(404))
async def daily(request: Request, family: Family = None) -> dict[str, Any]:
    """Today's puzzle (UTC), the same for everyone (of ``family``, when named)."""
    return shown((await _room(request)).daily(family=family))


@router.get("/api/puzzles/retry", responses=errors(401, 404))
async def retry(request: Request, family: Family = None) -> dict[str, Any]:
    """The account's oldest puzzle (of ``family``, when named) whose latest attempt failed."""
    user_id = await _guest_refused(request, "failed puzzles to retry")
    return shown(await (await _room(request)).retry_for(user_id, family))


@router.get("/api/puzzles/rating", responses=errors(401))
async def rating(request: Request) -> dict[str, Any]:
    """The account's puzzle rating, solves, failures and streak."""
    user_id = await _guest_refused(request, "puzzle rating")
    return (await (await _room(request)).standing(user_id)).to_json()


@router.get("/api/puzzles/{puzzle_id}", responses=errors(404))
async def puzzle(puzzle_id: str, request: Request) -> dict[str, Any]:
    """One puzzle, as it is set (not its answer)."""
    return shown((await _room(request)).get(puzzle_id))


@router.post("/api/puzzles/{puzzle_id}/answer", responses=errors(403, 404, 422))
async def answer(puzzle_id: str, body: AnswerIn, request: Request) -> dict[str, Any]:
    """Judge a card: solved or not, the answer, every card's value and themes; for an account
    (CSRF token checked) the rating change and the streak."""
    user = None if await optional_user(request) is None else await checked_user(request)
    outcome = await (await _room(request)).answer(puzzle_id, body.card, None if user is None else user.id)
    return outcome_json(outcome)


@router.post("/api/tables/{table_id}/puzzles", responses=errors(401, 403, 404, 409))
async def from_mistakes(table_id: str, request: Request) -> dict[str, Any]:
    """"Learn from your mistakes": the signed-in player's costliest plays of a finished game
    become its puzzles (served first by ``/api/puzzles/next``)."""
    await signed_in(request)
    user = await checked_user(request)
    found = await (await _room(request)).from_mistakes(table_id[:40], user.id)
    return {"table": table_id, "puzzles": [shown(puzzle) for puzzle in found]}

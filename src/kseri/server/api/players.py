"""Accounts and players: sign-up and sessions (``server/accounts.py``), quick pairing
(``server/pairing.py``), profiles, leaderboards and analyses (``server/players.py``), each
area's routes where its work is done, gathered here; and a profile's results in events
(``server/results.py``), which the players' room comes before."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from kseri.server import accounts, pairing, players
from kseri.server.errors import errors
from kseri.server.results import player_results

router = APIRouter()
router.include_router(accounts.router)
router.include_router(pairing.router)
router.include_router(players.router)


@router.get("/api/players/{username}/results", tags=["players"], responses=errors(404))
async def results(username: str, request: Request) -> dict[str, Any]:
    """A player's results in events: each tournament played (place of how many, points) and
    each challenge finished (won, lost or drawn, against whom, the difference), newest first."""
    found: players.Players = request.app.state.players
    user = await found.user_by_name(username)
    return await player_results(found.store, user["id"])

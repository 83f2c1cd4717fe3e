"""``GET /api/tables/{id}/odds``: the win odds (``analysis/odds.py``) at one position of a
finished casual game, for the replay viewer's odds bar; refused for rated games and for games
still in play."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from sqlalchemy import select

from kseri.analysis import odds, record_plays
from kseri.server import db
from kseri.server.errors import ApiError, errors
from kseri.server.players import Players

router = APIRouter(tags=["analysis"])

REPLAY_WORLDS = 128
"""Worlds sampled for a replay's odds (a few milliseconds a position, once warm)."""


@router.get("/api/tables/{table_id}/odds", responses=errors(403, 404, 409, 422))
async def table_odds(table_id: str, request: Request, round: Annotated[int, Query(ge=0, le=1000)],
                     play: Annotated[int, Query(ge=0, le=1000)]) -> dict[str, Any]:
    """The chance that the side of the seat about to make play ``play`` (from 0) of round
    ``round`` wins the round and the match, with 95% intervals, from that seat's view."""
    players: Players = request.app.state.players
    table_id = table_id[:40]
    async with players.store.engine.connect() as connection:
        rated = (await connection.execute(
            select(db.tables.c.rated).where(db.tables.c.id == table_id))).scalar()
    if rated is None:
        raise ApiError(404, "no-such-table", f"there is no table {table_id!r}")
    if rated:
        raise ApiError(403, "rated", "win odds are never shown for rated games")
    record = await players.record_of(table_id)
    if record is None or not record["complete"]:
        raise ApiError(409, "not-finished", "win odds are shown once the match is over")
    plays = await asyncio.to_thread(record_plays, record)
    view = next((v for v, _, r, p in plays if (r, p) == (round, play)), None)
    if view is None:
        raise ApiError(422, "no-such-play", f"round {round + 1} has no play {play + 1}", field="play")
    chance = await asyncio.to_thread(odds, view, worlds=REPLAY_WORLDS)

    def interval(value: Any) -> list[float | None]:
        return [round_to(value.estimate), round_to(value.low), round_to(value.high)]

    return {"round": round, "play": play, "seat": view.seat, "side": view.side,
            "round_odds": interval(chance.round), "match_odds": interval(chance.match),
            "worlds": chance.worlds}


def round_to(value: float | None) -> float | None:
    """A chance to three decimals."""
    return None if value is None else float(f"{value:.3f}")

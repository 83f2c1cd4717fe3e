"""``GET /api/tables/{id}/odds``: the win odds (``analysis/odds.py``), never for a rated table.

- At a position of a finished game (``round`` and ``play`` given), for the replay viewer's odds bar.
- Live, during play (no ``round``/``play``): for a player in a casual game against the computer
  (every other seat a bot; the seat's token as ``Authorization: Bearer``), from its own view on its
  turn; for a spectator, from what a spectator may see (``spectator_odds``: the seat to play's
  hand drawn from the unseen cards). Searched in the table's worker processes
  (``server/workers.py``), once per table state and viewer however often it is asked, each new
  search taking a token of the viewer's allowance (``limits.hints_per_minute``; a seat's, or one
  for all the table's spectators)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from sqlalchemy import select

from kseri.analysis import odds, record_plays
from kseri.analysis.odds import Odds
from kseri.engine import SpectatorView, View
from kseri.server import db
from kseri.server.accounts import optional_user
from kseri.server.errors import ApiError, errors
from kseri.server.limits import TokenBucket
from kseri.server.players import Players
from kseri.server.registry import TableRegistry
from kseri.server.room import GameTable
from kseri.server.workers import SearchBusy

router = APIRouter(tags=["analysis"])

REPLAY_WORLDS = 128
"""Worlds sampled for a replay's odds (a few milliseconds a position, once warm)."""
LIVE_WORLDS = 128
"""Worlds sampled for the odds during play (a spectator's: 8 for each of 16 hands drawn)."""
KEPT = 512
"""Live odds (asked or done) kept at most, across tables, before the finished ones are let go."""

Viewer = int | None
"""Whose odds: a seat, or ``None`` for the spectators."""


class LiveOdds:
    """The odds asked during play: one search per table, state and viewer, each new search
    allowed by the viewer's token bucket."""

    def __init__(self, per_minute: float) -> None:
        self.per_minute = per_minute
        self._pending: dict[tuple[str, int, Viewer], asyncio.Future[Odds]] = {}
        self._allowance: dict[tuple[str, Viewer], TokenBucket] = {}

    async def ask(self, table: GameTable, view: View | SpectatorView, viewer: Viewer) -> Odds:
        """The odds of ``view`` at the table's current state (429 when the viewer asks for new
        searches too often, 503 when the workers are busy)."""
        seq = table.state.seq
        key = (table.id, seq, viewer)
        pending = self._pending.get(key)
        if pending is None:
            if len(self._allowance) > 4 * KEPT:
                self._allowance.clear()
            allowance = self._allowance.setdefault(
                (table.id, viewer), TokenBucket(self.per_minute / 60, max(1.0, self.per_minute / 6)))
            if not allowance.take():
                raise ApiError(429, "throttled", f"at most {self.per_minute:g} new odds a minute",
                               retry_after=max(1, round(60 / self.per_minute)))
            if len(self._pending) > KEPT:
                self._pending = {k: f for k, f in self._pending.items() if not f.done()}
            self._pending = {k: f for k, f in self._pending.items() if k[0] != table.id or k[1] == seq}
            search = table.search.odds(view, LIVE_WORLDS, seed=seq)
            pending = self._pending[key] = asyncio.ensure_future(search)
            pending.add_done_callback(lambda done: done.exception() and self._pending.pop(key, None))
        try:
            return await asyncio.shield(pending)
        except SearchBusy:
            raise ApiError(503, "busy", "the server is busy thinking; ask for the odds again soon",
                           retry_after=2) from None


def _live(request: Request) -> LiveOdds:
    state = request.app.state
    if getattr(state, "live_odds", None) is None:
        state.live_odds = LiveOdds(state.settings.limits.hints_per_minute)
    live: LiveOdds = state.live_odds
    return live


@router.get("/api/tables/{table_id}/odds", responses=errors(401, 403, 404, 409, 422, 429, 503))
async def table_odds(table_id: str, request: Request,
                     round: Annotated[int | None, Query(ge=0, le=1000)] = None,
                     play: Annotated[int | None, Query(ge=0, le=1000)] = None,
                     authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """The chance that a side wins the round and the match, with 95% intervals: with ``round``
    and ``play``, of the seat about to make play ``play`` (from 0) of round ``round`` of a
    finished game, from that seat's view; without them, live (see the module)."""
    table_id = table_id[:40]
    if round is None and play is None:
        return await _live_odds(table_id, request, authorization)
    if round is None or play is None:
        missing = "round" if round is None else "play"
        raise ApiError(422, "missing-field", "name both the round and the play, or neither (live odds)",
                       field=missing)
    players: Players = request.app.state.players
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
    return {"round": round, "play": play, **odds_json(view.seat, view.side, chance)}


async def _live_odds(table_id: str, request: Request, authorization: str | None) -> dict[str, Any]:
    tables: TableRegistry = request.app.state.tables
    table = await tables.get(table_id)
    if table is None:
        raise ApiError(404, "no-such-table", f"there is no table {table_id!r}")
    if table.rated:
        raise ApiError(403, "rated", "win odds are never shown for rated games")
    seat = _viewer(table, authorization)
    if seat is None:
        user = await optional_user(request)
        if user is not None and table.seat_of_user(user.id) is not None:
            seat = table.seat_of_user(user.id)
    if seat is not None:
        if not table.casual:
            raise ApiError(403, "odds-off", "win odds are for casual games against the computer")
        if any(other.kind != "bot" for index, other in enumerate(table.seats) if index != seat):
            raise ApiError(403, "human-opponent", "win odds are shown to a player only against the computer:"
                           " against a person they would be advice")
    match = table.state.match
    if match is None or match.turn is None or table.state.status == "finished":
        raise ApiError(409, "not-playing", "no play is due: the odds are shown while a round is played")
    view: View | SpectatorView
    if seat is None:
        view = match.spectator_view()
    else:
        if match.turn != seat:
            raise ApiError(409, "not-your-turn", f"the odds are worked out on your turn; it is seat "
                           f"{match.turn}'s")
        view = match.view(seat)
    chance = await _live(request).ask(table, view, seat)
    turn = match.turn
    return {"seq": table.state.seq, "round": view.round_index, "play": len(view.plays), "live": True,
            "spectator": seat is None, **odds_json(turn, table.rules.side_of(turn), chance)}


def _viewer(table: GameTable, authorization: str | None) -> int | None:
    """The seat whose token the request carries (``None``: no token, a spectator); 401 for a
    token that holds no seat here."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    seat = table.seat_of(token) if scheme.lower() == "bearer" and token else None
    if seat is None:
        raise ApiError(401, "bad-token", "send the seat's token as 'Authorization: Bearer TOKEN', or none to"
                       " watch")
    return seat


def odds_json(seat: int | None, side: int | None, chance: Odds) -> dict[str, Any]:
    """Odds as the API gives them: the seat to play, its side, and the chances with their intervals."""

    def interval(value: Any) -> list[float | None]:
        return [round_to(value.estimate), round_to(value.low), round_to(value.high)]

    return {"seat": seat, "side": side, "round_odds": interval(chance.round),
            "match_odds": interval(chance.match), "worlds": chance.worlds}


def round_to(value: float | None) -> float | None:
    """A chance to three decimals."""
    return None if value is None else float(f"{value:.3f}")

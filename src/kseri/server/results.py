"""A player's results in events, as the profile lists them (``docs/players.md``): each
tournament played (its place, points and the number of entrants, worked out from the stored
games by :func:`kseri.bench.standings.standings`, as the tournament's page ranks them) and
each challenge finished by both sides (:func:`kseri.server.challenges.results_of`)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from kseri.bench.standings import Result, standings
from kseri.server import db
from kseri.server.challenges import results_of
from kseri.server.tournament_tables import entrants, games, tournaments

LISTED = 50
"""The most tournaments (and challenges) a profile lists, newest first."""


async def tournament_places(store: db.Store, user_id: str, limit: int = LISTED) -> list[dict[str, Any]]:
    """The tournaments the account played, newest first (under way or finished): the place it
    holds (``place`` of ``entrants``), its game points and, for a duplicate, matchpoints."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(tournaments).join(
            entrants, entrants.c.tournament_id == tournaments.c.id).where(
            entrants.c.user_id == user_id, tournaments.c.status.in_(("playing", "finished")))
            .order_by(tournaments.c.starts.desc()).limit(limit))).mappings().all()
        out = []
        for row in rows:
            players = (await connection.scalars(select(entrants.c.user_id).where(
                entrants.c.tournament_id == row["id"]).order_by(entrants.c.joined, entrants.c.user_id))).all()
            played = (await connection.execute(select(games).where(games.c.tournament_id == row["id"])))
            results = [Result(g["round"], g["first"], g["second"], g["score"],
                              tuple(json.loads(g["points"])) if g["points"] else None)
                       for g in played.mappings()]
            mine = next(entry for entry in standings(row["format"], list(players), results, row["id"])
                        if entry["user"] == user_id)
            out.append({"id": row["id"], "name": row["name"], "rules": row["rules"], "format": row["format"],
                        "status": row["status"], "starts": row["starts"], "place": mine["place"],
                        "entrants": len(players), "points": mine["score"],
                        "matchpoints": mine["matchpoints"] if row["format"] == "duplicate" else None})
    return out


async def player_results(store: db.Store, user_id: str) -> dict[str, Any]:
    """The profile's events: ``tournaments`` (:func:`tournament_places`) and ``challenges``."""
    return {"tournaments": await tournament_places(store, user_id),
            "challenges": await results_of(store, user_id, LISTED)}

"""Ratings: one per player and rule family, updated after every rated match (OpenSkill).

The model is Weng and Lin's Bayesian approximation with the Plackett-Luce likelihood
(``openskill.models.PlackettLuce``), which rates a 1v1 match, a 2v2 partnership (each side a
team) and a free-for-all of three to five players (each player a team, ranked) alike. It is
set on the Elo scale: a new player starts at :data:`START` with uncertainty :data:`START_SIGMA`,
and ``beta`` makes a gap of 100 points between settled players mean about 64% wins, as in Elo.
A rating is shown as its mean, rounded, with ``?`` while its uncertainty is above
:data:`PROVISIONAL_SIGMA`.

A rated match's sides are ranked: the winner first, the others by their match totals; a side
that abandoned the match (a forfeit) last. Bots are not rated against people; each level's
strength on the same scale comes from the tournament bench's ladder (:data:`BOT_RATINGS`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, insert, select, update

from kseri.rules import PRESETS, Rules
from kseri.server import db

START = 1500.0
"""A new player's rating."""
START_SIGMA = 350.0
"""A new player's uncertainty (one standard deviation)."""
BETA = 400 / math.log(10) / math.sqrt(2)
"""Performance spread: a 100-point gap between settled players wins as often as in Elo."""
TAU = START_SIGMA / 100
"""Uncertainty added before each match, so a rating keeps moving."""
PROVISIONAL_SIGMA = 250.0
"""A rating with more uncertainty than this is shown with a ``?`` (about the first ten games)."""

MODEL = PlackettLuce(mu=START, sigma=START_SIGMA, beta=BETA, tau=TAU)
"""The rating model every family uses."""

BOT_RATINGS: dict[str, dict[str, int]] = {
    "greek": {"random": 1000, "expert-5": 1027, "expert-18": 1199, "expert-35": 1400, "greedy": 1443,
              "expert-62": 1610, "learned": 1697, "expert": 1690, "master": 1866},
    "pisti": {"random": 1000, "expert-5": 1014, "expert-18": 1109, "expert-35": 1212, "greedy": 1285,
              "expert-62": 1338, "learned": 1396, "expert": 1426, "master": 1452},
    "classic": {"random": 1000, "expert-5": 1008, "expert-18": 1102, "expert-35": 1206, "greedy": 1266,
                "expert-62": 1328, "learned": 1382, "expert": 1418, "master": 1449},
}
"""Each bot level's strength per family on the players' scale, weakest first as
:data:`~kseri.agents.AGENTS` lists them: the bench ladder's Elo (``kseri tournament random
greedy learned expert-5 expert-18 expert-35 expert-62 expert master --rules FAMILY --deals 200
--matches 0 --workers 1``, 5 December 2026, the master reading four styles), anchored with
``random`` at 1000 (docs/players.md)."""

ratings = Table(
    "ratings", db.metadata,
    Column("user_id", String(24), ForeignKey("users.id"), primary_key=True),
    Column("family", String(40), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", Float, nullable=False, index=True),
)
rating_history = Table(
    "rating_history", db.metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", String(24), ForeignKey("users.id"), nullable=False),
    Column("family", String(40), nullable=False),
    Column("table_id", String(40), ForeignKey("tables.id"), nullable=True),  # None: a challenge's
    Column("at", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("challenge_id", String(24), nullable=True, index=True),  # a rated challenge (migration 0013)
    Column("rank", Integer, nullable=True),  # the player's place in a rated challenge (0 first)
)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating: the mean and its uncertainty."""

    mu: float = START
    sigma: float = START_SIGMA

    @property
    def provisional(self) -> bool:
        """Whether too little is known yet (shown with a ``?``)."""
        return self.sigma > PROVISIONAL_SIGMA

    def shown(self) -> str:
        """The rating as people read it: ``1523``, or ``1500?`` while provisional."""
        return f"{round(self.mu)}{'?' if self.provisional else ''}"

    def to_json(self) -> dict[str, Any]:
        """The rating as the API shows it."""
        return {"rating": round(self.mu), "provisional": self.provisional, "shown": self.shown(),
                "mu": round(self.mu, 3), "sigma": round(self.sigma, 3)}


def family_of(rules: Rules) -> str | None:
    """The preset these rules are (a rule family), or ``None`` for other options."""
    options = rules.options()
    return next((name for name, preset in PRESETS.items() if preset.options() == options), None)


def side_ranks(sides: int, winner: int, totals: Sequence[int], forfeit_side: int | None = None) -> list[int]:
    """Each side's place (0 first): the winner, then the others by totals (equal totals share a
    place), a side that forfeited last."""
    def key(side: int) -> tuple[int, int, int]:
        return (side != winner, side == forfeit_side, -totals[side])

    order = sorted(range(sides), key=key)
    ranks = [0] * sides
    for place, side in enumerate(order):
        previous = order[place - 1] if place else None
        same = previous is not None and key(previous) == key(side)
        ranks[side] = ranks[previous] if same and previous is not None else place
    return ranks


def rate(teams: Sequence[Sequence[Rating]], ranks: Sequence[int]) -> list[list[Rating]]:
    """The ratings after a match between ``teams`` (each a side's players) finishing in
    ``ranks`` (0 first; equal ranks a draw between them)."""
    if len(teams) != len(ranks) or len(teams) < 2:
        raise ValueError(f"{len(teams)} teams and {len(ranks)} ranks: "
                         "need one rank a team, two teams at least")
    given = [[MODEL.create_rating([r.mu, r.sigma]) for r in team] for team in teams]
    updated = MODEL.rate(given, ranks=[float(rank) for rank in ranks])
    return [[Rating(player.mu, player.sigma) for player in team] for team in updated]


async def ratings_of(store: db.Store, user_ids: Sequence[str], family: str) -> dict[str, tuple[Rating, int]]:
    """Each user's rating in ``family`` and games rated (new players: the start, 0)."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(
            select(ratings.c.user_id, ratings.c.mu, ratings.c.sigma, ratings.c.games)
            .where(ratings.c.family == family, ratings.c.user_id.in_(list(user_ids))))).all()
    found = {row[0]: (Rating(row[1], row[2]), row[3]) for row in rows}
    return {user: found.get(user, (Rating(), 0)) for user in user_ids}


REPEAT_GAMES = 3
"""Rated games two accounts may play together within :data:`REPEAT_WINDOW`; later ones are not
rated (a pair of accounts cannot farm a rating from each other)."""
REPEAT_WINDOW = 3600.0
"""Seconds over which :data:`REPEAT_GAMES` counts."""


async def rated_together(store: db.Store, users: Sequence[str], since: float) -> int:
    """The most rated games any two of ``users`` played together since ``since`` (UNIX time)."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(
            select(rating_history.c.table_id, rating_history.c.challenge_id, rating_history.c.user_id)
            .where(rating_history.c.user_id.in_(list(users)), rating_history.c.at >= since))).all()
    at: dict[str, set[str]] = {}
    for table_id, challenge_id, user in rows:
        at.setdefault(table_id or f"challenge:{challenge_id}", set()).add(user)
    pairs: dict[tuple[str, str], int] = {}
    for seated in at.values():
        for first in seated:
            for second in seated:
                if first < second:
                    pairs[first, second] = pairs.get((first, second), 0) + 1
    return max(pairs.values(), default=0)


async def record_match(store: db.Store, table_id: str | None, family: str, teams: Sequence[Sequence[str]],
                       ranks: Sequence[int], challenge_id: str | None = None) -> dict[str, Rating]:
    """Rate a finished match: ``teams`` are the user ids of each side. Stores the new ratings
    and their history; returns them by user. A rated challenge (``server/challenges.py``) has
    no table: its ``challenge_id`` and each player's rank are kept instead (a recomputation
    rates it again from them, ``server/refunds.py``)."""
    users = [user for team in teams for user in team]
    current = await ratings_of(store, users, family)
    after = rate([[current[user][0] for user in team] for team in teams], ranks)
    now = time.time()
    new: dict[str, Rating] = {}
    async with store.engine.begin() as connection:
        for team, rated, rank in zip(teams, after, ranks, strict=True):
            for user, rating in zip(team, rated, strict=True):
                new[user] = rating
                values = {"mu": rating.mu, "sigma": rating.sigma, "games": current[user][1] + 1,
                          "updated": now}
                if current[user][1]:
                    await connection.execute(update(ratings).where(
                        ratings.c.user_id == user, ratings.c.family == family).values(**values))
                else:
                    await connection.execute(insert(ratings).values(user_id=user, family=family, **values))
                await connection.execute(insert(rating_history).values(
                    user_id=user, family=family, table_id=table_id, at=now, mu=rating.mu, sigma=rating.sigma,
                    challenge_id=challenge_id, rank=None if challenge_id is None else rank))
    return new


async def user_ratings(store: db.Store, user_id: str) -> list[dict[str, Any]]:
    """A player's rating in each family played, with its history (oldest first)."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(
            select(ratings).where(ratings.c.user_id == user_id).order_by(ratings.c.family))).mappings().all()
        history = (await connection.execute(
            select(rating_history).where(rating_history.c.user_id == user_id)
            .order_by(rating_history.c.id))).mappings().all()
    out = []
    for row in rows:
        entry = {"family": row["family"], "games": row["games"], **Rating(row["mu"], row["sigma"]).to_json()}
        entry["history"] = [{"at": h["at"], "table": h["table_id"], "challenge": h["challenge_id"],
                             "rating": round(h["mu"]),
                             "provisional": Rating(h["mu"], h["sigma"]).provisional}
                            for h in history if h["family"] == row["family"]]
        out.append(entry)
    return out


def bot_ratings() -> dict[str, dict[str, int]]:
    """Each bot level's rating per measured family (:data:`BOT_RATINGS`)."""
    return {family: dict(levels) for family, levels in BOT_RATINGS.items()}

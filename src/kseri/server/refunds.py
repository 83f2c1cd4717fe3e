"""Rated results read back from the tables' logs, and rating refunds (migration 0007).

When a player is banned for unfair play, their last :data:`REFUND_GAMES` rated games are
annulled (as lichess does) and every rating of the families concerned is **recomputed** from
the rated history: from the earliest annulled game on, each later rated match is rated again,
in its order, from the ratings before it, without the annulled ones (whose history entries
go). Each opponent's change (their rating now against before) is kept as a refund, shown on
their profile. A match's result is read from its table's log (the winner, the totals, a
forfeit), as when it was first rated (:func:`match_result`); a rated challenge's, which has no
table, from the ranks its history entries keep (a game's key is then ``challenge:ID``).

The recomputation runs in the moderator's request (or ``kseri admin refund``), one family at a
time; a rated match finishing meanwhile is rated from the ratings it read before.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from kseri.rules import Rules
from kseri.server import accounts, db, moderation
from kseri.server.eventlog import EventLog, GameState, RoundSecret
from kseri.server.fairplay import Ending, RatedGame
from kseri.server.ratings import Rating, rate, rating_history, ratings, side_ranks

REFUND_GAMES = 40
"""The banned player's latest rated games annulled by a refund."""

annulled_games = Table(
    "annulled_games", db.metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("user_id", String(24), nullable=False, index=True),
    Column("action_id", Integer, ForeignKey("moderation_actions.id"), nullable=False),
    Column("at", Float, nullable=False),
)
annulled_challenges = Table(
    "annulled_challenges", db.metadata,
    Column("challenge_id", String(24), primary_key=True),
    Column("user_id", String(24), nullable=False, index=True),
    Column("action_id", Integer, ForeignKey("moderation_actions.id"), nullable=False),
    Column("at", Float, nullable=False),
)
"""Rated challenges (``server/challenges.py``) annulled by a refund (migration 0013)."""
CHALLENGE = "challenge:"
"""The prefix of a rated challenge's key among the rated games (a table's key is its id)."""
rating_refunds = Table(
    "rating_refunds", db.metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", String(24), ForeignKey("users.id"), nullable=False, index=True),
    Column("family", String(40), nullable=False),
    Column("change", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("action_id", Integer, ForeignKey("moderation_actions.id"), nullable=False),
    Column("at", Float, nullable=False),
)


def match_result(rules: Rules, users: Sequence[str | None],
                 state: GameState) -> tuple[list[list[str]], list[int]]:
    """A finished match's sides (the accounts of each) and their ranks (0 first): the winner,
    then by totals, a side that forfeited last."""
    match = state.match
    if match is None or state.winner is None:
        raise ValueError(f"table {state.table_id} has no result")
    teams = [[users[seat] or "" for seat in range(rules.players) if rules.side_of(seat) == side]
             for side in range(rules.sides)]
    forfeit = None if state.forfeit is None else rules.side_of(state.forfeit[0])
    return teams, side_ranks(rules.sides, state.winner, match.totals, forfeit)


@dataclass(frozen=True, slots=True)
class Played:
    """A finished table as its log tells it."""

    table: str
    rules: Rules
    users: list[str | None]
    state: GameState


async def replayed(store: db.Store, table_id: str) -> Played | None:
    """A stored table's match, replayed from its log (``None``: no such table)."""
    stored = await store.load(table_id)
    if stored is None:
        return None
    rules = Rules.from_options(json.loads(stored.row["rules"]))
    rounds = [RoundSecret(r["secret"], r["commitment"], r["dealer"]) for r in stored.rounds]
    log = EventLog(table_id, rules, rounds, store)
    log.replay(stored.events)
    return Played(table_id, rules, [seat.get("user_id") for seat in stored.seats], log.state)


async def refund(store: db.Store, username: str, reason: str, by: str | None = None,
                 games: int = REFUND_GAMES) -> dict[str, Any]:
    """Annul the account's latest ``games`` rated games (those not annulled yet) and give their
    opponents back the rating changes, recomputed (logged as ``refund``). Returns what was
    done: the games annulled and each opponent's change by name."""
    target = await moderation.account(store, username)
    why = reason.strip()
    if not why:
        raise moderation.ModerationError("no-reason", "every moderation action needs a reason")
    async with store.engine.connect() as connection:
        done = await _annulled(connection)
        rows = (await connection.execute(
            select(rating_history.c.table_id, rating_history.c.challenge_id, rating_history.c.family)
            .where(rating_history.c.user_id == target.id).order_by(rating_history.c.id.desc()))).all()
    keyed = [(_key(table_id, challenge_id), family) for table_id, challenge_id, family in rows]
    chosen = [(key, family) for key, family in keyed if key not in done][:games]
    families = sorted({family for _, family in chosen})
    opponents: dict[tuple[str, str], int] = {}
    async with store.engine.connect() as connection:
        for key, family in chosen:
            seated = (await connection.scalars(select(rating_history.c.user_id).where(
                _of_game(key), rating_history.c.user_id != target.id))).all()
            for user in seated:
                opponents[user, family] = opponents.get((user, family), 0) + 1
    now = time.time()
    async with store.engine.begin() as connection:
        action = await moderation.log_action(connection, by, target.id, "refund", why,
                                             {"games": len(chosen), "families": families})
        for key, _ in chosen:
            if key.startswith(CHALLENGE):
                await connection.execute(insert(annulled_challenges).values(
                    challenge_id=key.removeprefix(CHALLENGE), user_id=target.id, action_id=action, at=now))
            else:
                await connection.execute(insert(annulled_games).values(
                    table_id=key, user_id=target.id, action_id=action, at=now))
    changes: dict[str, dict[str, float]] = {}
    for family in families:
        async with store.engine.connect() as connection:  # the first entry of any annulled game
            start = await connection.scalar(select(func.min(rating_history.c.id)).where(
                rating_history.c.family == family,
                or_(*(_of_game(key) for key, fam in chosen if fam == family))))
        assert start is not None
        before = await _current(store, family)
        await recompute(store, family, start)
        after = await _current(store, family)
        async with store.engine.begin() as connection:
            for (user, fam), count in opponents.items():
                if fam != family:
                    continue
                change = after.get(user, Rating()).mu - before.get(user, Rating()).mu
                changes.setdefault(user, {})[family] = change
                await connection.execute(insert(rating_refunds).values(
                    user_id=user, family=family, change=change, games=count, action_id=action, at=now))
    names = await _names(store, list(changes))
    return {"username": target.username, "games": [table_id for table_id, _ in chosen],
            "refunds": {names.get(user, user): {family: round(change, 1) for family, change in found.items()}
                        for user, found in changes.items()}}


def _key(table_id: str | None, challenge_id: str | None) -> str:
    """A rated game's key: its table's id, or ``challenge:ID`` for a rated challenge."""
    return table_id if table_id is not None else f"{CHALLENGE}{challenge_id}"


def _of_game(key: str) -> ColumnElement[bool]:
    """The history entries of the rated game ``key``."""
    if key.startswith(CHALLENGE):
        return rating_history.c.challenge_id == key.removeprefix(CHALLENGE)
    return rating_history.c.table_id == key


async def _annulled(connection: AsyncConnection) -> set[str]:
    """The keys of every annulled rated game, tables' and challenges'."""
    tables = (await connection.scalars(select(annulled_games.c.table_id))).all()
    challenged = (await connection.scalars(select(annulled_challenges.c.challenge_id))).all()
    return set(tables) | {f"{CHALLENGE}{challenge_id}" for challenge_id in challenged}


async def _current(store: db.Store, family: str) -> dict[str, Rating]:
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(ratings.c.user_id, ratings.c.mu, ratings.c.sigma)
                                         .where(ratings.c.family == family))).all()
    return {user: Rating(mu, sigma) for user, mu, sigma in rows}


async def _names(store: db.Store, user_ids: list[str]) -> dict[str, str]:
    users = accounts.users
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(users.c.id, users.c.username)
                                         .where(users.c.id.in_(user_ids)))).all()
    return {user: name for user, name in rows}


async def recompute(store: db.Store, family: str, start: int) -> None:
    """Rate again, in order, every rated match of ``family`` whose history begins at entry
    ``start`` or later, from the ratings before it, leaving out the annulled ones (their entries
    go); then set each player's rating and games from the history."""
    async with store.engine.connect() as connection:
        annulled = await _annulled(connection)
        found = (await connection.execute(
            select(rating_history.c.id, rating_history.c.table_id, rating_history.c.challenge_id,
                   rating_history.c.user_id, rating_history.c.rank)
            .where(rating_history.c.family == family, rating_history.c.id >= start)
            .order_by(rating_history.c.id))).all()
        later = [(row_id, _key(table_id, challenge_id), user)
                 for row_id, table_id, challenge_id, user, _ in found]
        placed = {(_key(table_id, challenge_id), user): rank
                  for _, table_id, challenge_id, user, rank in found if table_id is None}
        players = sorted({user for _, _, user in later})
        current: dict[str, Rating] = {}
        for user in players:
            earlier = (await connection.execute(
                select(rating_history.c.mu, rating_history.c.sigma)
                .where(rating_history.c.user_id == user, rating_history.c.family == family,
                       rating_history.c.id < start).order_by(rating_history.c.id.desc()).limit(1))).first()
            current[user] = Rating() if earlier is None else Rating(earlier[0], earlier[1])
    order = list(dict.fromkeys(table_id for _, table_id, _ in later))
    rows: dict[str, list[int]] = {}
    for row_id, table_id, _ in later:
        rows.setdefault(table_id, []).append(row_id)
    updates: list[tuple[str, str, Rating]] = []
    for table_id in order:
        if table_id in annulled:
            continue
        if table_id.startswith(CHALLENGE):  # each player alone, at the place the entry keeps
            teams = [[user] for _, key, user in later if key == table_id]
            ranks = [placed[table_id, team[0]] for team in teams]
        else:
            played = await replayed(store, table_id)
            if played is None or played.state.match is None:
                continue
            teams, ranks = match_result(played.rules, played.users, played.state)
        new = rate([[current.get(user, Rating()) for user in team] for team in teams], ranks)
        for team, rated in zip(teams, new, strict=True):
            for user, rating in zip(team, rated, strict=True):
                current[user] = rating
                updates.append((table_id, user, rating))
    async with store.engine.begin() as connection:
        for table_id in order:
            if table_id in annulled:
                gone = rating_history.c.id.in_(rows[table_id])
                await connection.execute(delete(rating_history).where(gone))
        for table_id, user, rating in updates:
            await connection.execute(update(rating_history).where(
                _of_game(table_id), rating_history.c.user_id == user,
                rating_history.c.family == family).values(mu=rating.mu, sigma=rating.sigma))
        for user in players:
            entries = (await connection.execute(
                select(rating_history.c.mu, rating_history.c.sigma)
                .where(rating_history.c.user_id == user, rating_history.c.family == family)
                .order_by(rating_history.c.id.desc()))).all()
            where = (ratings.c.user_id == user) & (ratings.c.family == family)
            if entries:
                await connection.execute(update(ratings).where(where).values(
                    mu=entries[0][0], sigma=entries[0][1], games=len(entries)))
            else:
                await connection.execute(delete(ratings).where(where))


async def refunds_of(store: db.Store, user_id: str) -> list[dict[str, Any]]:
    """The rating refunds an account was given, newest first (its profile shows them)."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(rating_refunds).where(rating_refunds.c.user_id == user_id)
                                         .order_by(rating_refunds.c.id.desc()))).mappings().all()
    return [{"family": r["family"], "change": round(r["change"]), "games": r["games"], "at": r["at"]}
            for r in rows]


async def is_annulled(store: db.Store, table_id: str) -> bool:
    """Whether a rated game was annulled by a refund."""
    async with store.engine.connect() as connection:
        found = await connection.scalar(select(annulled_games.c.at)
                                        .where(annulled_games.c.table_id == table_id))
    return found is not None


async def rated_games_at(store: db.Store, tables: Sequence[str]) -> list[RatedGame]:
    """These rated tables' two-player games, in the order given, as the fair-play signals read
    them (a table not rated, or not of two accounts, left out); each table's log replayed."""
    async with store.engine.connect() as connection:
        entries = (await connection.execute(
            select(rating_history).where(rating_history.c.table_id.in_(tables))
            .order_by(rating_history.c.id))).mappings().all()
        before: dict[tuple[str, str], float] = {}
        for entry in entries:
            earlier = await connection.scalar(
                select(rating_history.c.mu).where(rating_history.c.user_id == entry["user_id"],
                                                  rating_history.c.family == entry["family"],
                                                  rating_history.c.id < entry["id"])
                .order_by(rating_history.c.id.desc()).limit(1))
            before[entry["table_id"], entry["user_id"]] = Rating().mu if earlier is None else earlier
    after = {(e["table_id"], e["user_id"]): (e["mu"], e["at"]) for e in entries}
    games = []
    for table_id in tables:
        played = await replayed(store, table_id)
        if played is None or played.state.match is None or len(played.users) != 2 or None in played.users:
            continue
        first, second = (user or "" for user in played.users)
        if (table_id, first) not in after or (table_id, second) not in after:
            continue
        match, state = played.state.match, played.state
        ending: Ending = ("abandoned" if state.forfeit else "resigned" if match.resigned is not None
                          else "played")
        games.append(RatedGame(
            table_id, after[table_id, first][1], (first, second), state.winner, ending,
            sum(len(plays) for plays in match.plays),
            (before[table_id, first], before[table_id, second]),
            (after[table_id, first][0], after[table_id, second][0])))
    return games


__all__ = ["CHALLENGE", "REFUND_GAMES", "Played", "annulled_challenges", "is_annulled", "match_result",
           "rated_games_at", "recompute", "refund", "refunds_of", "replayed"]

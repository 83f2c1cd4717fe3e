"""The server's puzzles (``docs/analysis.md``): the shipped starting set loaded into a fresh
database, puzzles cut from the finished games stored here (a player's biggest mistakes become
puzzles for that player on request; :class:`PuzzleCutter` cuts every finished game's clear
positions for everyone in the background), each account's puzzle rating, streak and attempts.

:class:`PuzzleRoom` keeps every puzzle in memory (read once from the database, written through on
each change), so choosing the next puzzle is a lookup; a player's rating and attempts are read from
the database on each request. Guests solve unrated and nothing of theirs is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Boolean, Column, Float, Integer, String, Table, Text, insert, select, update
from sqlalchemy.exc import IntegrityError

from kseri.analysis.puzzles import (
    Puzzle,
    PuzzleError,
    Rating,
    daily_puzzle,
    next_puzzle,
    puzzles_from_record,
    puzzles_of_plays,
    rate_attempt,
    starting_set,
)
from kseri.cards import Card
from kseri.server import db
from kseri.server.errors import ApiError
from kseri.server.players import Players

log = logging.getLogger("kseri.server")

puzzles = Table(
    "puzzles", db.metadata,
    Column("id", String(12), primary_key=True),
    Column("data", Text, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("origin", String(12), nullable=False),  # "starting" (shipped), "mistake" or "game" (a game here)
    Column("owner", String(24), nullable=True, index=True),  # the account whose mistake it was
    Column("table_id", String(40), nullable=True),
    Column("created", Float, nullable=False),
)
puzzle_ratings = Table(
    "puzzle_ratings", db.metadata,
    Column("user_id", String(24), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("failed", Integer, nullable=False),
    Column("streak", Integer, nullable=False),
    Column("best_streak", Integer, nullable=False),
    Column("updated", Float, nullable=False),
)
puzzle_attempts = Table(
    "puzzle_attempts", db.metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", String(24), nullable=False, index=True),
    Column("puzzle_id", String(12), nullable=False),
    Column("card", String(4), nullable=False),
    Column("solved", Boolean, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("at", Float, nullable=False),
)

puzzle_cuts = Table(
    "puzzle_cuts", db.metadata,
    Column("table_id", String(40), primary_key=True),
    Column("found", Integer, nullable=False),  # puzzles cut from it; CLAIMED while being cut
    Column("at", Float, nullable=False),
)

CLAIMED = -1
"""``puzzle_cuts.found`` of a game being cut (claimed at ``at``)."""
CLAIM_EXPIRES = 600.0
"""Seconds after which a claimed game whose cutting never finished (a process stopped) is cut again."""

MISTAKE_LOSS = 1.0
"""A play losing at least this many points is a mistake worth a puzzle."""


@dataclass(frozen=True, slots=True)
class Standing:
    """An account's puzzle rating and record."""

    rating: Rating
    solved: int = 0
    failed: int = 0
    streak: int = 0
    best_streak: int = 0

    def to_json(self) -> dict[str, Any]:
        """The standing as the API answers it."""
        return {"rating": self.rating.shown, "solved": self.solved, "failed": self.failed,
                "streak": self.streak, "best_streak": self.best_streak}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one answer did: solved or not, and the account's standing before and after (``None``
    for a guest); ``rated`` is false for a guest and for a puzzle tried before."""

    puzzle: Puzzle
    solved: bool
    rated: bool
    before: Standing | None
    after: Standing | None


def shown(puzzle: Puzzle) -> dict[str, Any]:
    """A puzzle as it is set: the seat's view and the puzzle's rating, not its answer."""
    return {"id": puzzle.id, "view": puzzle.to_json()["view"], "rating": puzzle.rating.shown,
            "exact": puzzle.exact, "hand": [str(card) for card in puzzle.view.hand]}


def solution(puzzle: Puzzle) -> dict[str, Any]:
    """A puzzle's answer: the cards that solve it, every card's value, its themes and its line."""
    data = puzzle.to_json()
    return {key: data[key] for key in ("answers", "values", "themes", "sequence", "gap", "exact")}


class PuzzleRoom:
    """Puzzles, ratings and attempts over the server's database."""

    def __init__(self, store: db.Store, players: Players) -> None:
        self.store = store
        self.players = players
        self.puzzles: dict[str, Puzzle] = {}
        self.owners: dict[str, str] = {}
        """Mistake puzzles' accounts, by puzzle id."""
        self._loaded = asyncio.Lock()
        self._ready = False
        self._writing = asyncio.Lock()
        """One answer or new puzzle written at a time (SQLite takes one writer; an account's
        standing is read and written whole)."""

    async def ready(self) -> PuzzleRoom:
        """Load the puzzles (a fresh database first gets the starting set)."""
        if self._ready:
            return self
        async with self._loaded:
            if self._ready:
                return self
            async with self.store.engine.begin() as connection:
                have = set((await connection.execute(
                    select(puzzles.c.id).where(puzzles.c.origin == "starting"))).scalars())
                missing = [puzzle for puzzle in starting_set() if puzzle.id not in have]
                if missing:  # a fresh database, or one from before a family's puzzles were shipped
                    now = time.time()
                    await connection.execute(insert(puzzles), [
                        {"id": puzzle.id, "data": json.dumps(puzzle.to_json()), "mu": puzzle.rating.mu,
                         "sigma": puzzle.rating.sigma, "origin": "starting", "owner": None,
                         "table_id": None, "created": now} for puzzle in missing])
                rows = (await connection.execute(
                    select(puzzles.c.data, puzzles.c.mu, puzzles.c.sigma, puzzles.c.owner))).all()
            for data, mu, sigma, owner in rows:
                puzzle = replace(Puzzle.from_json(json.loads(data)), rating=Rating(mu, sigma))
                self.puzzles[puzzle.id] = puzzle
                if owner is not None:
                    self.owners[puzzle.id] = owner
            self._ready = True
        return self

    def get(self, puzzle_id: str) -> Puzzle:
        """The puzzle ``puzzle_id`` (404 when there is none)."""
        puzzle = self.puzzles.get(puzzle_id)
        if puzzle is None:
            raise ApiError(404, "no-such-puzzle", f"there is no puzzle {puzzle_id[:40]!r}")
        return puzzle

    def families(self) -> dict[str, int]:
        """How many public puzzles each rule family has, the most first."""
        counts: dict[str, int] = {}
        for pid, puzzle in self.puzzles.items():
            if pid not in self.owners:
                counts[puzzle.family] = counts.get(puzzle.family, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def daily(self, day: datetime | None = None, family: str | None = None) -> Puzzle:
        """Today's puzzle (UTC), the same for everyone: drawn from the starting set (of
        ``family`` when one is named)."""
        today = (day or datetime.now(UTC)).date()
        shipped = [puzzle for puzzle in starting_set() if family is None or puzzle.family == family]
        if not shipped:
            raise ApiError(404, "no-such-family", f"no puzzle of the family {family!r}")
        return self.get(daily_puzzle(shipped, today).id)

    async def standing(self, user_id: str) -> Standing:
        """An account's puzzle standing (a new account's: 1500, nothing tried)."""
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(select(puzzle_ratings).where(
                puzzle_ratings.c.user_id == user_id))).mappings().one_or_none()
        if row is None:
            return Standing(Rating())
        return Standing(Rating(row["mu"], row["sigma"]), row["solved"], row["failed"], row["streak"],
                        row["best_streak"])

    async def _tried(self, user_id: str) -> dict[str, bool]:
        """Each puzzle the account tried, with whether its latest attempt solved it."""
        async with self.store.engine.connect() as connection:
            rows = (await connection.execute(
                select(puzzle_attempts.c.puzzle_id, puzzle_attempts.c.solved)
                .where(puzzle_attempts.c.user_id == user_id).order_by(puzzle_attempts.c.id))).all()
        return {puzzle_id: solved for puzzle_id, solved in rows}

    async def next_for(self, user_id: str | None, skip: Sequence[str] = (),
                       family: str | None = None) -> Puzzle:
        """The next puzzle (of ``family`` when one is named): for an account, its own mistakes first
        (costliest first), then the untried puzzle nearest its rating; for a guest, the one nearest
        1500 not in ``skip``."""
        done = set(skip)
        rating = Rating()
        if user_id is not None:
            done |= set(await self._tried(user_id))
            rating = (await self.standing(user_id)).rating
            for pid, owner in self.owners.items():  # kept costliest first
                if owner == user_id and pid not in done and family in (None, self.puzzles[pid].family):
                    return self.puzzles[pid]
        public = [puzzle for pid, puzzle in self.puzzles.items() if pid not in self.owners]
        chosen = next_puzzle(rating, public, done, family) or next_puzzle(rating, public, set(skip), family)
        if chosen is None:
            raise ApiError(404, "no-puzzle-left", "every puzzle has been tried; retry the failed ones")
        return chosen

    async def retry_for(self, user_id: str, family: str | None = None) -> Puzzle:
        """The account's oldest puzzle (of ``family`` when one is named) whose latest attempt
        failed (404 when there is none)."""
        failed = [pid for pid, solved in (await self._tried(user_id)).items()
                  if not solved and family in (None, self.puzzles[pid].family)]
        if not failed:
            raise ApiError(404, "no-failed-puzzle", "no failed puzzle to retry: every puzzle tried"
                           " was solved")
        return self.get(failed[0])

    async def answer(self, puzzle_id: str, card: str, user_id: str | None) -> Outcome:
        """Judge ``card`` for the puzzle; for an account, record the attempt and (on a first
        try) move its rating and the puzzle's. A bad id or card is refused with nothing stored."""
        puzzle = self.get(puzzle_id)
        try:
            solved = puzzle.check(card)
        except PuzzleError as error:
            raise ApiError(422, "not-in-hand", str(error), field="card") from None
        if user_id is None:
            return Outcome(puzzle, solved, False, None, None)
        async with self._writing:
            return await self._record(puzzle, card, solved, user_id)

    async def _record(self, puzzle: Puzzle, card: str, solved: bool, user_id: str) -> Outcome:
        puzzle_id = puzzle.id
        puzzle = self.puzzles[puzzle_id]  # its rating as it is now
        before = await self.standing(user_id)
        rated = puzzle_id not in await self._tried(user_id)
        rating, puzzle_rating = before.rating, puzzle.rating
        if rated:
            rating, puzzle_rating = rate_attempt(before.rating, puzzle.rating, solved=solved)
        streak = before.streak + 1 if solved else 0
        after = Standing(rating, before.solved + solved, before.failed + (not solved), streak,
                         max(before.best_streak, streak))
        now = time.time()
        values = {"mu": rating.mu, "sigma": rating.sigma, "solved": after.solved, "failed": after.failed,
                  "streak": after.streak, "best_streak": after.best_streak, "updated": now}
        async with self.store.engine.begin() as connection:
            changed = (await connection.execute(update(puzzle_ratings)
                                                .where(puzzle_ratings.c.user_id == user_id).values(**values)))
            if changed.rowcount == 0:
                await connection.execute(insert(puzzle_ratings).values(user_id=user_id, **values))
            await connection.execute(insert(puzzle_attempts).values(
                user_id=user_id, puzzle_id=puzzle_id, card=str(Card(card.strip())), solved=solved,
                rated=rated, at=now))
            if rated:
                await connection.execute(update(puzzles).where(puzzles.c.id == puzzle_id).values(
                    mu=puzzle_rating.mu, sigma=puzzle_rating.sigma))
        self.puzzles[puzzle_id] = replace(puzzle, rating=puzzle_rating)
        return Outcome(puzzle, solved, rated, before, after)

    async def from_mistakes(self, table_id: str, user_id: str) -> list[Puzzle]:
        """"Learn from your mistakes": the account's costliest plays in a finished game it sat
        at become its puzzles (from the game's stored analysis; kept once)."""
        async with self.store.engine.connect() as connection:
            seat = (await connection.execute(select(db.seats.c.seat).where(
                db.seats.c.table_id == table_id, db.seats.c.user_id == user_id))).scalar()
        if seat is None:
            raise ApiError(404, "not-your-game", f"you held no seat at table {table_id[:40]!r}")
        analysis = await self.players.analysis(table_id)
        record = await self.players.record_of(table_id)
        assert record is not None  # the analysis exists, so the record does
        costly = [play for play in analysis["plays"] if play["seat"] == seat and play["loss"] >= MISTAKE_LOSS]
        costly.sort(key=lambda play: (-play["loss"], play["round"], play["play"]))
        played = {(play["round"], play["play"]): Card(play["card"]) for play in costly}
        found = await asyncio.to_thread(puzzles_of_plays, record, played, seat)
        return await self._keep(found, user_id, table_id)

    async def _keep(self, found: Sequence[Puzzle], user_id: str, table_id: str) -> list[Puzzle]:
        async with self._writing:
            await self._store(found, user_id, table_id)
        return [self.puzzles.get(puzzle.id, puzzle) for puzzle in found]

    async def _store(self, found: Sequence[Puzzle], user_id: str | None, table_id: str,
                     cut: bool = False) -> int:
        """Keep the puzzles not kept yet: a player's mistakes (``user_id``), or a game's cut in the
        background for everyone (``cut``: its ``puzzle_cuts`` row is settled in the same
        transaction); how many were new."""
        new = [puzzle for puzzle in found if puzzle.id not in self.puzzles]
        now = time.time()
        async with self.store.engine.begin() as connection:
            if new:
                existing = set((await connection.execute(select(puzzles.c.id).where(
                    puzzles.c.id.in_([puzzle.id for puzzle in new])))).scalars())
                new = [puzzle for puzzle in new if puzzle.id not in existing]  # another process's
            if new:
                await connection.execute(insert(puzzles), [
                    {"id": puzzle.id, "data": json.dumps(puzzle.to_json()), "mu": puzzle.rating.mu,
                     "sigma": puzzle.rating.sigma, "origin": "game" if cut else "mistake", "owner": user_id,
                     "table_id": table_id, "created": now} for puzzle in new])
            if cut:
                await connection.execute(update(puzzle_cuts).where(puzzle_cuts.c.table_id == table_id)
                                         .values(found=len(new), at=now))
        for puzzle in new:
            self.puzzles[puzzle.id] = puzzle
            if user_id is not None:
                self.owners[puzzle.id] = user_id
        return len(new)

    # -- puzzles cut from the games played here, in the background ---------------------------------

    async def _claim(self) -> str | None:
        """The oldest finished game not cut yet (or whose cutting was left unfinished), claimed
        for this process; ``None`` when every game is cut."""
        now = time.time()
        tables = db.tables
        async with self.store.engine.begin() as connection:
            stale = (await connection.execute(select(puzzle_cuts.c.table_id).where(
                puzzle_cuts.c.found == CLAIMED, puzzle_cuts.c.at < now - CLAIM_EXPIRES).limit(1))).scalar()
            if stale is not None:
                taken = await connection.execute(update(puzzle_cuts).where(
                    puzzle_cuts.c.table_id == stale, puzzle_cuts.c.found == CLAIMED,
                    puzzle_cuts.c.at < now - CLAIM_EXPIRES).values(at=now))
                return str(stale) if taken.rowcount else None
            table_id = (await connection.execute(
                select(tables.c.id).where(tables.c.finished.is_(True),
                                          tables.c.id.not_in(select(puzzle_cuts.c.table_id)))
                .order_by(tables.c.created, tables.c.id).limit(1))).scalar()
        if table_id is None:
            return None
        try:
            async with self.store.engine.begin() as connection:
                await connection.execute(insert(puzzle_cuts).values(table_id=table_id, found=CLAIMED, at=now))
        except IntegrityError:  # another process claimed it first
            return None
        return str(table_id)

    async def cut_next(self) -> tuple[str, int] | None:
        """Cut the next finished game not cut yet: its analysis is made and stored (a profile's
        accuracy comes from these) and every position where one card is clearly best becomes a
        puzzle for everyone, the searches in the analysis worker process. The game and how many
        new puzzles it gave, or ``None`` when every game is cut."""
        table_id = await self._claim()
        if table_id is None:
            return None
        record = await self.players.record_of(table_id)
        found: Sequence[Puzzle] = ()
        if record is not None and record["complete"]:  # a match a moderator closed is not cut
            await self.players.analysis(table_id)
            found = await self.players.in_worker(puzzles_from_record, record)
        async with self._writing:
            return table_id, await self._store(found, None, table_id, cut=True)


class PuzzleCutter:
    """The background task that cuts puzzles from the finished games stored here, one game at a
    time, at most ``per_minute`` games a minute (``kseri serve --puzzle-cuts``; 0: none), oldest
    first, each game once: ``puzzle_cuts`` remembers the games cut, so a restart goes on where
    it stopped."""

    def __init__(self, room: PuzzleRoom, per_minute: float) -> None:
        self.room = room
        self.per_minute = per_minute
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin cutting (nothing when ``per_minute`` is 0)."""
        if self.per_minute > 0 and self._task is None:
            self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop cutting (a game half cut is cut again after a restart)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        pause = 60.0 / self.per_minute
        while True:
            await asyncio.sleep(pause)
            try:
                await (await self.room.ready()).cut_next()
            except Exception:  # a bad game must not stop the cutting of the others
                log.exception("cutting puzzles from a stored game failed")


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """An answer's result as the API gives it."""
    change: Mapping[str, Any] | None = None
    if outcome.before is not None and outcome.after is not None:
        change = {"before": outcome.before.rating.shown, "after": outcome.after.rating.shown,
                  "change": outcome.after.rating.shown - outcome.before.rating.shown}
    return {"id": outcome.puzzle.id, "solved": outcome.solved, "rated": outcome.rated,
            **solution(outcome.puzzle), "rating": change,
            "standing": None if outcome.after is None else outcome.after.to_json()}

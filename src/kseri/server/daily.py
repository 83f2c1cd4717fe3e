"""The daily deal: every UTC day, for each family of :data:`FAMILIES`, a fixed set of deals
that every player gets, against the same seeded bots, scored deal by deal in matchpoints against
everyone who played them (``bench/matchpoints.py``) and beside what the master made in the
player's seat (worked out once per deal and stored).

The day's deals come from a secret committed when the day opens and revealed when it closes
(:func:`kseri.fairness.daily_seeds`). One ranked attempt per account and day; guests play
unranked. Nobody sees another player's record, the ladder or the deals' proofs before finishing
their own attempt; everything of a day is public once it closes. The bots' choices depend only
on the deal and the plays so far (:func:`bot_seed`), so two players who play alike see the same
answers. ``docs/events.md`` tells the whole story.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from kseri import fairness
from kseri.agents import make_agent
from kseri.bench.matchpoints import board_matchpoints, place_label, total_matchpoints
from kseri.cards import Card
from kseri.engine import Deal, Match
from kseri.records import record_from_match
from kseri.rules import Rules
from kseri.server import db
from kseri.server.errors import ApiError
from kseri.server.workers import SearchPool
from kseri.views import view_to_json

FAMILIES = ("greek", "pisti")
"""The rule families with a daily deal."""
ROUNDS = 3
"""Deals in a day's set."""
BOT_LEVEL = "expert"
"""The bots' level (strong, and quick enough to answer at once)."""
CLOCK_FILE = "KSERI_CLOCK_FILE"
"""An environment variable naming a file that holds the server's time (ISO 8601, UTC) for the
daily's calendar: tests move the day forward by rewriting it. Unset: the real clock."""
MASTER_LEVEL = "KSERI_DAILY_MASTER"
"""An environment variable naming the level that stands for the master (default ``master``;
tests use a quicker one)."""

days = Table(
    "daily_days", db.metadata,
    Column("day", String(10), primary_key=True),
    Column("rules", String(20), primary_key=True),
    Column("secret", String(64), nullable=False),
    Column("commitment", String(64), nullable=False),
)
attempts = Table(
    "daily_attempts", db.metadata,
    Column("id", String(24), primary_key=True),
    Column("day", String(10), nullable=False),
    Column("rules", String(20), nullable=False),
    Column("user_id", String(24), nullable=True, index=True),
    Column("name", String(80), nullable=False),
    Column("ranked_user", String(24), nullable=True),  # a ranked attempt's account, else NULL
    Column("token_hash", String(64), nullable=False),
    Column("plays", Text, nullable=False),
    Column("finished", Boolean, nullable=False),
    Column("results", Text, nullable=True),
    Column("started", Float, nullable=False),
    Index("daily_one_ranked", "day", "rules", "ranked_user", unique=True),
    Index("daily_by_day", "day", "rules", "finished"),
)
masters = Table(
    "daily_masters", db.metadata,
    Column("day", String(10), primary_key=True),
    Column("rules", String(20), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("result", Integer, nullable=False),
)


def clock() -> datetime:
    """The server's time for the daily (:data:`CLOCK_FILE` when set)."""
    path = os.environ.get(CLOCK_FILE)
    if path:
        return datetime.fromisoformat(Path(path).read_text().strip()).astimezone(UTC)
    return datetime.now(UTC)


def bot_seed(kind: str, cut: str, index: int, plays: int) -> int:
    """A bot's seed: only the deal (the set's kind and cut, the deal's index) and how many plays
    came before (a daily's cut is ``DAY:FAMILY``, a challenge's its id)."""
    text = f"{kind}-bot:{cut}:{index}:{plays}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def deal_match(rules: Rules, kind: str, cut: str, index: int, seed: str) -> Match:
    """Deal ``index`` of a set, as a one-round match: the player (seat 0) leads."""
    dealer = rules.players - 1
    return Match(rules, seed=f"{kind}:{cut}:{index}", deal=Deal.shuffle(rules, dealer, seed))


def result_of(match: Match) -> int:
    """The player's result on a finished deal: their side's points minus the best other side's."""
    points = match.round_results[-1].points
    mine = match.rules.side_of(0)
    return points[mine] - max(p for side, p in enumerate(points) if side != mine)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(kw_only=True)
class DealSet:
    """A set of deals played alone at seat 0 against seeded bots (a daily attempt, one side of a
    challenge): the deals so far, rebuilt from the plays. The bots' choices depend only on the
    set (``kind``, ``cut``), the deal and the plays before (:func:`bot_seed`)."""

    kind: str
    cut: str
    family: str
    seeds: list[str]
    plays: list[str] = field(default_factory=list)
    """Every card played in the set, bots' included, in order."""
    matches: list[Match] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def rules(self) -> Rules:
        return Rules.from_spec(self.family)

    @property
    def current(self) -> Match:
        return self.matches[-1]

    @property
    def finished(self) -> bool:
        return len(self.matches) == len(self.seeds) and self.current.is_round_over()

    def results(self) -> list[int]:
        """The player's result on each finished deal."""
        return [result_of(m) for m in self.matches if m.is_round_over()]

    def advance(self) -> None:
        """Open the next deal when the current one is over."""
        if not self.matches or (self.current.is_round_over() and len(self.matches) < len(self.seeds)):
            index = len(self.matches)
            self.matches.append(deal_match(self.rules, self.kind, self.cut, index, self.seeds[index]))

    def apply(self, card: str) -> None:
        """One play of whoever's turn it is (a bad card raises and changes nothing)."""
        self.current.play(Card(card))
        self.plays.append(card)
        self.advance()

    def bot_due(self) -> bool:
        """Whether the turn is a bot's."""
        return not self.finished and self.current.turn not in (None, 0)

    def bot_play(self) -> str:
        """The bot's choice at the turn (seeded by the deal and the plays)."""
        match = self.current
        assert match.turn is not None
        seed = bot_seed(self.kind, self.cut, len(self.matches) - 1, len(match.plays[-1]))
        return str(make_agent(BOT_LEVEL, seed=seed).choose(match.view(match.turn)))

    def replay(self, plays: list[str]) -> None:
        """Deal the set and play ``plays`` (stored ones), then the bots up to the player's turn
        (a bot's lead is never stored: it follows from the deal)."""
        self.plays, self.matches = [], []
        self.advance()
        for card in plays:
            self.apply(card)
        while self.bot_due():
            self.apply(self.bot_play())

    def play_card(self, card: str) -> None:
        """The player's card, then the bots' answers up to the player's turn or the end; a card
        that is not legal raises :class:`ValueError` and changes nothing."""
        before = self.plays[:]
        try:
            if Card(card) not in self.current.legal_plays():
                raise ValueError(f"{card} is not a legal play here")
            self.apply(card)
            while self.bot_due():
                self.apply(self.bot_play())
        except ValueError:
            self.replay(before)
            raise

    def state(self) -> dict[str, Any]:
        """What the player sees: the deal in play from seat 0, the results so far."""
        return {"round": len(self.matches) - 1, "rounds": len(self.seeds), "results": self.results(),
                "finished": self.finished, "view": view_to_json(self.current.view(0))}


@dataclass(kw_only=True)
class Attempt(DealSet):
    """One player's go at a day's set."""

    id: str
    day: str
    name: str
    user_id: str | None
    ranked: bool
    token_hash: str


def daily_attempt(attempt_id: str, day: str, family: str, secret: str, *, name: str, user_id: str | None,
                  ranked: bool, token_hash: str) -> Attempt:
    """A daily attempt at a day's set, not dealt yet (:meth:`DealSet.replay` deals it)."""
    return Attempt(kind="daily", cut=f"{day}:{family}", family=family, id=attempt_id, day=day,
                   seeds=fairness.daily_seeds(secret, day, family, ROUNDS), name=name, user_id=user_id,
                   ranked=ranked, token_hash=token_hash)


class Daily:
    """The daily deals, their attempts, ladders and histories over the server's database."""

    def __init__(self, store: db.Store, search: SearchPool,
                 now: Callable[[], datetime] = clock) -> None:
        self.store = store
        self.search = search
        self.now = now
        self.live: dict[str, Attempt] = {}
        """The attempts being played (a finished one is read back from the store)."""
        self._masters: dict[tuple[str, str], asyncio.Task[list[int]]] = {}

    # -- days ----------------------------------------------------------------------------------

    def today(self) -> str:
        """Today's date (UTC), as ``2026-12-04``."""
        return self.now().date().isoformat()

    def _checked(self, day: str, family: str) -> None:
        if family not in FAMILIES:
            raise ApiError(404, "no-such-daily", f"there is no daily for {family!r}; the families are: "
                           + ", ".join(FAMILIES))
        try:
            date.fromisoformat(day)
        except ValueError:
            raise ApiError(404, "no-such-day", f"{day!r} is not a day (write it as 2026-12-04)") from None
        if len(day) != 10:
            raise ApiError(404, "no-such-day", f"{day!r} is not a day (write it as 2026-12-04)")

    async def _day_row(self, day: str, family: str, *, open_it: bool) -> dict[str, Any] | None:
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(select(days).where(days.c.day == day, days.c.rules == family))
                   ).mappings().first()
        if row is None and open_it:
            secret = fairness.new_secret()
            try:
                async with self.store.engine.begin() as connection:
                    await connection.execute(insert(days).values(
                        day=day, rules=family, secret=secret, commitment=fairness.commitment(secret)))
            except IntegrityError:
                pass  # opened at the same moment by another request
            return await self._day_row(day, family, open_it=False)
        return None if row is None else dict(row)

    async def day(self, day: str, family: str) -> dict[str, Any]:
        """A day's daily: ``open`` (its commitment), ``closed`` (and its secret); a day to come,
        or a past day that never opened, is refused."""
        self._checked(day, family)
        today = self.today()
        if day > today:
            raise ApiError(409, "day-not-open", f"the daily of {day} has not opened yet (today is {today})")
        row = await self._day_row(day, family, open_it=day == today)
        if row is None:
            raise ApiError(404, "no-such-day", f"no daily was played on {day}")
        closed = day < today
        return {"day": day, "rules": family, "status": "closed" if closed else "open", "rounds": ROUNDS,
                "commitment": row["commitment"], "secret": row["secret"] if closed else None,
                "closes": (datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(days=1)).isoformat()}

    async def _open_today(self, day: str, family: str) -> dict[str, Any]:
        info = await self.day(day, family)
        if info["status"] != "open":
            raise ApiError(409, "day-closed", f"the daily of {day} is closed: only today's ({self.today()}) "
                           "can be played")
        row = await self._day_row(day, family, open_it=False)
        assert row is not None
        return row

    # -- attempts ------------------------------------------------------------------------------

    async def start(self, day: str, family: str, user: tuple[str, str] | None,
                    name: str | None) -> tuple[Attempt, str]:
        """A new attempt (ranked for an account ``(id, username)``, unranked for a guest) and
        its token; a second ranked attempt the same day is refused."""
        row = await self._open_today(day, family)
        ranked = user is not None
        token = secrets.token_urlsafe(24)
        attempt = daily_attempt(secrets.token_hex(8), day, family, row["secret"],
                                name=user[1] if user else (name or "Guest"),
                                user_id=user[0] if user else None, ranked=ranked, token_hash=_hash(token))
        try:
            async with self.store.engine.begin() as connection:
                await connection.execute(insert(attempts).values(
                    id=attempt.id, day=day, rules=family, user_id=attempt.user_id, name=attempt.name,
                    ranked_user=attempt.user_id, token_hash=attempt.token_hash, plays="[]",
                    finished=False, results=None, started=time.time()))
        except IntegrityError:
            raise ApiError(409, "daily-taken", f"you have already played the {family} daily of {day}; "
                           "one ranked attempt per day (come back tomorrow)") from None
        attempt.replay([])  # where the rules let a bot lead, it does before the first answer
        self.live[attempt.id] = attempt
        self._master_task(day, family, attempt.seeds)
        return attempt, token

    async def attempt(self, attempt_id: str, token: str | None) -> Attempt:
        """A player's own attempt, by its token."""
        attempt = self.live.get(attempt_id) or await self._load(attempt_id)
        if attempt is None:
            raise ApiError(404, "no-such-attempt", f"there is no daily attempt {attempt_id!r}")
        if token is None or not hmac.compare_digest(_hash(token), attempt.token_hash):
            raise ApiError(401, "bad-token", "send the attempt's token as 'Authorization: Bearer TOKEN'")
        return attempt

    async def _load(self, attempt_id: str) -> Attempt | None:
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(select(attempts).where(attempts.c.id == attempt_id))
                   ).mappings().first()
        if row is None:
            return None
        day_row = await self._day_row(row["day"], row["rules"], open_it=False)
        assert day_row is not None
        attempt = daily_attempt(row["id"], row["day"], row["rules"], day_row["secret"], name=row["name"],
                                user_id=row["user_id"], ranked=row["ranked_user"] is not None,
                                token_hash=row["token_hash"])
        attempt.replay(json.loads(row["plays"]))
        if not attempt.finished:
            self.live[attempt.id] = attempt
        return attempt

    async def play(self, attempt: Attempt, card: str) -> None:
        """The player's card, then the bots' answers until the player's turn or the end; stored
        before anyone hears of it."""
        async with attempt.lock:
            if attempt.finished:
                raise ApiError(409, "daily-finished", "this attempt is over: every deal has been played")
            if attempt.day != self.today():
                raise ApiError(409, "day-closed", f"the daily of {attempt.day} has closed")
            try:
                attempt.play_card(card)
            except ValueError as error:
                raise ApiError(422, "bad-play", str(error), field="card") from None
            results = attempt.results() if attempt.finished else None
            async with self.store.engine.begin() as connection:
                await connection.execute(update(attempts).where(attempts.c.id == attempt.id).values(
                    plays=json.dumps(attempt.plays), finished=attempt.finished,
                    results=None if results is None else json.dumps(results)))
            if attempt.finished:
                self.live.pop(attempt.id, None)  # read back from the store from now on

    def state(self, attempt: Attempt) -> dict[str, Any]:
        """What the player sees: the deal in play from seat 0, the results so far."""
        return {"id": attempt.id, "day": attempt.day, "rules": attempt.family, "ranked": attempt.ranked,
                "name": attempt.name} | attempt.state()

    # -- the master ----------------------------------------------------------------------------

    def _master_task(self, day: str, family: str, seeds: list[str]) -> asyncio.Task[list[int]]:
        key = (day, family)
        task = self._masters.get(key)
        if task is None or (task.done() and task.exception() is not None):
            task = self._masters[key] = asyncio.get_running_loop().create_task(
                self._masters_of(day, family, seeds))
        return task

    async def _masters_of(self, day: str, family: str, seeds: list[str]) -> list[int]:
        async with self.store.engine.connect() as connection:
            stored = dict((await connection.execute(
                select(masters.c.round, masters.c.result)
                .where(masters.c.day == day, masters.c.rules == family))).tuples().all())
        found = []
        level = os.environ.get(MASTER_LEVEL, "master")
        for index, seed in enumerate(seeds):
            if index in stored:
                found.append(stored[index])
                continue
            cut = f"{day}:{family}"
            match = deal_match(Rules.from_spec(family), "daily", cut, index, seed)
            while not match.is_round_over():
                seat = match.turn
                assert seat is not None
                if seat == 0:
                    card = await self.search.choose(level, bot_seed("daily", cut, index, -1), match.view(0))
                else:
                    chosen = bot_seed("daily", cut, index, len(match.plays[-1]))
                    card = await self.search.choose(BOT_LEVEL, chosen, match.view(seat))
                match.play(card)
            found.append(result_of(match))
            try:
                async with self.store.engine.begin() as connection:
                    await connection.execute(insert(masters).values(
                        day=day, rules=family, round=index, result=found[-1]))
            except IntegrityError:
                pass  # another process worked it out too: the same figure
        return found

    async def master(self, attempt: Attempt) -> list[int]:
        """The master's result on each deal of the attempt's set (worked out once, stored)."""
        return await asyncio.shield(self._master_task(attempt.day, attempt.family, attempt.seeds))

    # -- scores, ladders, records --------------------------------------------------------------

    async def _finished_ranked(self, day: str, family: str) -> list[dict[str, Any]]:
        async with self.store.engine.connect() as connection:
            rows = (await connection.execute(
                select(attempts.c.id, attempts.c.name, attempts.c.results)
                .where(attempts.c.day == day, attempts.c.rules == family, attempts.c.finished.is_(True),
                       attempts.c.ranked_user.is_not(None)).order_by(attempts.c.started))).mappings().all()
        return [{"id": r["id"], "name": r["name"], "results": json.loads(r["results"])} for r in rows]

    async def _may_see(self, day: str, family: str, user_id: str | None, token: str | None) -> None:
        """Refuse a look at a day's records to whoever has not finished an attempt there (an
        account's, or a guest's by its token) until the day closes."""
        info = await self.day(day, family)
        if info["status"] == "closed":
            return
        who = [attempts.c.user_id == user_id] if user_id is not None else []
        if token is not None:
            who.append(attempts.c.token_hash == _hash(token))
        if who:
            async with self.store.engine.connect() as connection:
                done = (await connection.execute(select(attempts.c.id).where(
                    attempts.c.day == day, attempts.c.rules == family, or_(*who),
                    attempts.c.finished.is_(True)))).first()
            if done is not None:
                return
        raise ApiError(403, "play-first", f"the {family} daily of {day} is secret until you have "
                       "finished your own attempt, or until the day closes")

    async def ladder(self, day: str, family: str, user_id: str | None, token: str | None) -> dict[str, Any]:
        """The day's ranked players by matchpoints (ties share a place), with percentages."""
        await self._may_see(day, family, user_id, token)
        field_ = await self._finished_ranked(day, family)
        scores = scored(field_)
        info = await self.day(day, family)
        return {"day": day, "rules": family, "status": info["status"], "players": len(field_),
                "ladder": sorted(scores.values(), key=lambda s: (-s["matchpoints"], s["name"]))}

    async def score(self, attempt: Attempt) -> dict[str, Any]:
        """A finished attempt's score: per deal the result, matchpoints, percentage and the
        master's result; the place on the day's ladder (unranked: where it would stand)."""
        if not attempt.finished:
            raise ApiError(409, "daily-unfinished", "finish every deal of the set first")
        field_ = await self._finished_ranked(attempt.day, attempt.family)
        if not attempt.ranked:
            field_.append({"id": attempt.id, "name": attempt.name, "results": attempt.results()})
        mine = scored(field_)[attempt.id]
        master = await self.master(attempt)
        deals = [d | {"master": m} for d, m in zip(mine["deals"], master, strict=True)]
        return mine | {"ranked": attempt.ranked, "deals": deals}

    async def _visible(self, attempt_id: str, user_id: str | None,
                       token: str | None) -> tuple[Attempt, dict[str, Any]]:
        """An attempt the caller may look at (its owner's once finished, anyone's once the day
        closes) and its day."""
        attempt = self.live.get(attempt_id) or await self._load(attempt_id)
        if attempt is None:
            raise ApiError(404, "no-such-attempt", f"there is no daily attempt {attempt_id!r}")
        owner = token is not None and hmac.compare_digest(_hash(token), attempt.token_hash)
        info = await self.day(attempt.day, attempt.family)
        mine = owner or (user_id is not None and user_id == attempt.user_id)
        if info["status"] != "closed" and not (mine and attempt.finished):
            raise ApiError(403, "play-first", "a daily record is secret until its owner has finished "
                           "and the day has closed for everyone else")
        return attempt, info

    async def versus(self, first: str, second: str, user_id: str | None,
                     token: str | None) -> dict[str, Any]:
        """Two finished attempts at the same deals compared deal by deal (duplicate style): each
        deal's plays side by side, where the two players parted, and who gained how much."""
        a, _ = await self._visible(first, user_id, token)
        b, _ = await self._visible(second, user_id, token)
        if (a.day, a.family) != (b.day, b.family):
            raise ApiError(409, "not-the-same-deals", "these attempts were dealt different cards "
                           f"({a.family} of {a.day}, {b.family} of {b.day})")
        if not (a.finished and b.finished):
            raise ApiError(409, "daily-unfinished", "both attempts must be finished to be compared")
        return {"day": a.day, "rules": a.family, "names": [a.name, b.name]} | side_by_side(a, b)

    async def record(self, attempt_id: str, user_id: str | None, token: str | None) -> list[dict[str, Any]]:
        """An attempt's deals as game records (``kseri verify`` checks them): its owner's once
        finished, anyone's once the day closes (with the revealed secret)."""
        attempt, info = await self._visible(attempt_id, user_id, token)
        proofs = info["status"] == "closed"
        out = []
        for index, match in enumerate(attempt.matches):
            cut = fairness.daily_cut(attempt.day, attempt.family, index)
            proof = [{"commitment": info["commitment"], "secret": info["secret"], "cut": cut}]
            record = record_from_match(match, names=[attempt.name] + [f"{BOT_LEVEL} bot"] * (
                match.rules.players - 1), fairness=proof if proofs else None)
            record["daily"] = {"day": attempt.day, "rules": attempt.family, "round": index,
                               "commitment": info["commitment"]}
            out.append(record)
        return out

    async def history(self, user_id: str) -> dict[str, Any]:
        """An account's finished daily attempts, newest first, with its streak of days in a row
        (up to today or yesterday)."""
        async with self.store.engine.connect() as connection:
            rows = (await connection.execute(
                select(attempts.c.id, attempts.c.day, attempts.c.rules, attempts.c.results)
                .where(attempts.c.user_id == user_id, attempts.c.finished.is_(True),
                       attempts.c.ranked_user.is_not(None))
                .order_by(attempts.c.day.desc()))).mappings().all()
        entries = []
        for row in rows:
            field_ = await self._finished_ranked(row["day"], row["rules"])
            mine = scored(field_)[row["id"]]
            entries.append({"day": row["day"], "rules": row["rules"], "percentage": mine["percentage"],
                            "place": mine["place"], "total": sum(json.loads(row["results"]))})
        return {"history": entries, "streak": streak({e["day"] for e in entries}, self.today())}


def scored(field_: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each attempt of a field (``{"id", "name", "results"}``) scored: per deal its result,
    matchpoints and percentage; in all its matchpoints, percentage and place (``#2= of 3``).
    A field of one has nobody to beat or lose to: 50%."""
    if not field_:
        return {}
    boards = [{a["id"]: float(a["results"][i]) for a in field_} for i in range(len(field_[0]["results"]))]
    per_deal = [board_matchpoints(board) for board in boards]
    totals = total_matchpoints(boards)
    top = len(field_) - 1

    def share(points: float, deals: int) -> float:
        return round(100.0 * points / (top * deals), 1) if top else 50.0

    out = {}
    for a in field_:
        deals = [{"result": a["results"][i], "matchpoints": per_deal[i][a["id"]],
                  "percentage": share(per_deal[i][a["id"]], 1)} for i in range(len(boards))]
        out[a["id"]] = {"id": a["id"], "name": a["name"], "deals": deals, "matchpoints": totals[a["id"]],
                        "percentage": share(totals[a["id"]], len(boards)),
                        "place": place_label(a["id"], totals)}
    return out


def compare_deal(first: Match, second: Match) -> dict[str, Any]:
    """One deal played twice, side by side: both players' plays (``[seat, card]``), the index
    of the first play where they parted (``None``: they played alike), both results and the
    difference (first minus second: what the first gained)."""
    plays = [[[p.seat, str(p.card)] for p in m.plays[-1]] for m in (first, second)]
    parted = next((i for i, (x, y) in enumerate(zip(*plays, strict=False)) if x != y), None)
    results = [result_of(first), result_of(second)]
    return {"plays": plays, "parted": parted, "results": results, "difference": results[0] - results[1]}


def side_by_side(first: DealSet, second: DealSet) -> dict[str, Any]:
    """Two finished sets of the same deals compared deal by deal (:func:`compare_deal`), and
    the difference summed (what the first gained on the second)."""
    deals = [compare_deal(x, y) for x, y in zip(first.matches, second.matches, strict=True)]
    return {"deals": deals, "difference": sum(d["difference"] for d in deals)}


def streak(played: set[str], today: str) -> int:
    """Days in a row played, ending today (or yesterday, when today is not played yet).

    >>> streak({"2026-12-02", "2026-12-03"}, "2026-12-04")
    2
    """
    day = date.fromisoformat(today)
    if today not in played:
        day -= timedelta(days=1)
    count = 0
    while day.isoformat() in played:
        count += 1
        day -= timedelta(days=1)
    return count

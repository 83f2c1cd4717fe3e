"""Tournaments for people: a Swiss (or duplicate-scored Swiss) over live tables.

A signed-in player creates a tournament (a rule set of two players, a format, a number of
rounds, a start time); players join until it starts. At the start time (or when the organiser
starts it early) the driver pairs round 1 by :func:`kseri.bench.swiss.pair_round`, stores the
round's games, and opens a table for each pairing through the table registry with the round's
deal key (:attr:`kseri.server.room.GameTable.deals`): every table of a round deals the same
cards. The driver watches the round's tables; a finished one's result is stored once (an update
of a game still without a score), and when every game of the round has its result the next
round is paired, until the last, when the tournament is finished.

Everything lives in the database (the tournament, its entrants, each round's games and their
tables), so a server killed at any moment resumes where it was: a round paired but without its
tables gets them, a table finished while the driver was away is read from the database.

Formats (``docs/events.md``): ``swiss`` ranks by game points (1 a win, ½ a draw, a bye 1),
then Buchholz, then a draw by the tournament's id; ``duplicate`` pairs the same way but ranks by
matchpoints (:mod:`kseri.bench.matchpoints`): on each round, everyone who held the same seat of
the same cards is compared by their points minus their opponent's; a bye scores the board's
average. Pure scoring is :func:`kseri.bench.standings.standings`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    delete,
    func,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from kseri.agents import AGENTS
from kseri.bench import arena, swiss
from kseri.bench.standings import Result, arena_points, mirrored_results, standings
from kseri.fairness import commitment
from kseri.rules import Rules, RulesError
from kseri.server import db
from kseri.server.accounts import User
from kseri.server.cluster import Elsewhere
from kseri.server.daily import clock
from kseri.server.errors import ApiError
from kseri.server.moderation import ModerationError, check_may_play
from kseri.server.ratings import family_of
from kseri.server.registry import Change, LeasedRegistry, TableRegistry
from kseri.server.resign import ResignRefused, close
from kseri.server.room import GameTable, run_to_end
from kseri.server.seats import SeatState, hash_token, new_token
from kseri.server.tournament_tables import entrants, games, tournaments

log = logging.getLogger("kseri.server")

FORMATS = ("swiss", "duplicate", "mirrored", "arena")
"""The formats: Swiss ranked by game points, or by duplicate matchpoints; ``mirrored`` is
duplicate where each pair plays the round's deals twice, seats swapped (two legs); ``arena``
pairs whoever finished at once, for a fixed time, ranked by points per game."""
BOT_FORMATS = ("swiss", "duplicate")
"""The formats where a bot may play the odd one out (an arena has no byes; a mirrored round's
two legs are for two people)."""
MAX_ENTRANTS = 1000
"""The most entrants a tournament takes (``benchmarks/tournament_load.py`` measures a field)."""
MAX_ROUNDS = 15
"""The most rounds a tournament may have."""
OPEN_PER_ORGANISER = 3
"""How many unfinished tournaments one account may have created at once (the creation limit)."""
MAX_START_DELAY = 7 * 86400
"""How far ahead a tournament may be scheduled (seconds)."""
MIN_ARENA_MINUTES, MAX_ARENA_MINUTES = 1, 180
"""The range of an arena's length (minutes)."""
MIN_SHOW_WITHIN, MAX_SHOW_WITHIN = 30, 600
"""The range of a tournament's time to come to a round's table (seconds)."""
FORFEITS_WITHDRAW = 2
"""A player who lost this many rounds by forfeit is withdrawn (paired no more)."""
TICK = 0.5
"""Seconds between the driver's looks at the tournaments under way."""
OPEN_BATCH = 50
"""A round's tables are stored against their games (and the live viewers told) this many at a
time: a field of 1,000 pushes its page data 10 times as its round opens, not 500."""
SHOWN_KEPT = 256
"""How many tournaments' page data are kept worked out."""

@dataclass(frozen=True, slots=True)
class _Shown:
    """A tournament's page data: the JSON every viewer gets alike, and what differs by viewer."""

    text: str
    entrants: frozenset[str]
    organiser: str
    tables: dict[str, str]
    """Each player's table in the round under way, while it is being played."""


def round_key(secret: str, round_number: int) -> str:
    """The deal key of a tournament's round: every table of the round deals from it."""
    return hashlib.sha256(f"tournament:{secret}:{round_number}".encode()).hexdigest()


def arena_key(secret: str, game: int) -> str:
    """The deal key of an arena's game (each game its own cards)."""
    return hashlib.sha256(f"tournament:{secret}:arena:{game}".encode()).hexdigest()


class Tournaments:
    """The tournaments over the server's database and its table registry, and their driver."""

    def __init__(self, store: db.Store, tables: TableRegistry, tick: float = TICK) -> None:
        self.store = store
        self.tables = tables
        self.tick = tick
        self.me = tables.cluster.me if isinstance(tables, LeasedRegistry) else secrets.token_hex(6)
        """This process's id (a cluster's, for the tournaments' leases)."""
        self.lease = max(tables.settings.lease, 2 * tick)
        """Seconds a process drives a tournament without renewing its lease (every step)."""
        self._lock = asyncio.Lock()
        """Held by every change (a join, a start, the driver's step): one at a time."""
        self._driver: asyncio.Task[None] | None = None
        self._shown: dict[str, _Shown] = {}
        """Each tournament's page data as last worked out (dropped at each change)."""
        self._version = 0
        """Counts the changes (page data worked out across one is not kept)."""
        self._building: dict[str, asyncio.Task[_Shown]] = {}
        """Each tournament's page data being worked out (every viewer asking meanwhile waits on it)."""
        self._watchers: dict[str, set[asyncio.Event]] = {}
        """Each tournament's live viewers (:meth:`watch`): each one's event is set at a change."""
        tables.listen(self._heard)

    def start(self) -> None:
        """Begin driving the tournaments (and resume those under way)."""
        self._driver = asyncio.create_task(self._drive())

    async def stop(self) -> None:
        """Stop the driver (what it did is stored; it resumes on the next start)."""
        if self._driver is not None:
            self._driver.cancel()
            with suppress(asyncio.CancelledError):
                await self._driver

    async def _drive(self) -> None:
        while True:
            try:
                await self.step()
            except Exception:
                log.exception("tournaments: a step failed (the next one tries again)")
            await asyncio.sleep(self.tick)

    # -- reading ---------------------------------------------------------------------------------

    async def _row(self, tournament_id: str) -> dict[str, Any]:
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(select(tournaments).where(
                tournaments.c.id == tournament_id[:24]))).mappings().first()
        if row is None:
            raise ApiError(404, "no-such-tournament", f"there is no tournament {tournament_id!r:.40}")
        return dict(row)

    async def _entrants(self, tournament_id: str) -> list[dict[str, Any]]:
        async with self.store.engine.connect() as connection:
            rows = await connection.execute(select(entrants).where(entrants.c.tournament_id == tournament_id)
                                            .order_by(entrants.c.joined, entrants.c.user_id))
            return [dict(r) for r in rows.mappings()]

    async def _games(self, tournament_id: str) -> list[dict[str, Any]]:
        async with self.store.engine.connect() as connection:
            rows = await connection.execute(select(games).where(games.c.tournament_id == tournament_id)
                                            .order_by(games.c.round, games.c.board))
            return [dict(r) for r in rows.mappings()]

    async def listing(self) -> list[dict[str, Any]]:
        """The public tournaments: open and under way first (soonest first), then the latest
        finished ones."""
        async with self.store.engine.connect() as connection:
            rows = (await connection.execute(select(tournaments).where(tournaments.c.public.is_(True))
                                             .order_by(tournaments.c.starts.desc()).limit(200))).mappings().all()
            counts: dict[str, int] = dict((await connection.execute(
                select(entrants.c.tournament_id, func.count()).group_by(entrants.c.tournament_id))).all())
        shown = [_summary(dict(row), counts.get(row["id"], 0)) for row in rows]
        shown.sort(key=lambda t: (t["status"] in ("finished", "cancelled"), t["starts"]))
        return shown

    async def show(self, tournament_id: str, viewer: str | None) -> str:
        """A tournament as its page shows it (JSON text): entrants, rounds with their pairings
        and tables, the standings, and the viewer's own table in the round under way. What every
        viewer sees alike is worked out once per change of the tournament (a page polled by
        every entrant costs a lookup, not the standings again)."""
        shown = self._shown.get(tournament_id)
        if shown is None:
            building = self._building.get(tournament_id)
            if building is None:  # one worked out at a time, however many viewers wait for it
                building = asyncio.ensure_future(self._build_kept(tournament_id))
                self._building[tournament_id] = building
                building.add_done_callback(lambda done: self._built(tournament_id, done))
            shown = await asyncio.shield(building)
        mine = {"joined": viewer in shown.entrants, "organiser": viewer == shown.organiser,
                "my_table": shown.tables.get(viewer) if viewer else None}
        return shown.text[:-1] + ", " + json.dumps(mine)[1:]

    async def _build_kept(self, tournament_id: str) -> _Shown:
        version = self._version
        shown = await self._build(tournament_id)
        if version == self._version:  # nothing changed meanwhile: keep it
            while len(self._shown) >= SHOWN_KEPT:
                del self._shown[next(iter(self._shown))]
            self._shown[tournament_id] = shown
        return shown

    def _built(self, tournament_id: str, done: asyncio.Task[_Shown]) -> None:
        if self._building.get(tournament_id) is done:
            del self._building[tournament_id]
        if not done.cancelled():
            done.exception()  # retrieved: each viewer waiting on it got it already

    @contextmanager
    def watch(self, tournament_id: str) -> Iterator[asyncio.Event]:
        """A live viewer of a tournament (its WebSocket, ``/ws/tournaments/{id}``) for the
        ``with`` block: the event is set at each change of the tournament, here or (in a
        cluster) on any process, until the viewer leaves."""
        changed = asyncio.Event()
        self._watchers.setdefault(tournament_id, set()).add(changed)
        try:
            yield changed
        finally:
            watching = self._watchers.get(tournament_id, set())
            watching.discard(changed)
            if not watching:
                self._watchers.pop(tournament_id, None)

    def watching(self) -> int:
        """How many live viewers the tournaments have here."""
        return sum(len(w) for w in self._watchers.values())

    async def _build(self, tournament_id: str) -> _Shown:
        row = await self._row(tournament_id)
        players = await self._entrants(row["id"])
        played = await self._games(row["id"])
        names = {p["user_id"]: p["username"] for p in players}
        results = [_result(g) for g in played]
        table = standings(row["format"], list(names), results, row["id"])
        for entry in table:
            entry["username"] = names[entry.pop("user")]
        rounds: dict[int, list[dict[str, Any]]] = {}
        tables: dict[str, str] = {}
        for g in played:
            rounds.setdefault(g["round"], []).append({
                "board": g["board"], "first": names.get(g["first"]),
                "second": names.get(g["second"]) if g["second"] else None, "table": g["table_id"],
                "score": g["score"], "points": json.loads(g["points"]) if g["points"] else None,
                "forfeit": g["forfeit"], "came": [bool((g["came"] or 0) & 1), bool((g["came"] or 0) & 2)],
                "bot": row["bot"] if g["second"] is None and g["table_id"] else None})
            under_way = g["round"] == row["round"] and row["status"] == "playing"
            if under_way and g["score"] is None and g["table_id"]:
                tables[g["first"]] = g["table_id"]
                if g["second"]:
                    tables[g["second"]] = g["table_id"]
        data = _summary(row, len(players)) | {
            "players": [{"username": p["username"], "withdrawn": p["withdrawn"] is not None}
                        for p in players],
            "pairings": [{"round": n, "games": rounds[n]} for n in sorted(rounds)],
            "standings": table,
            "round_keys": {str(n): round_key(row["secret"], n) for n in rounds}
            if row["status"] in ("finished", "cancelled") else {},
        }
        return _Shown(json.dumps(data), frozenset(names), row["organiser"], tables)

    @asynccontextmanager
    async def _writing(self, tournament_id: str) -> AsyncIterator[AsyncConnection]:
        """A transaction changing a tournament (its page data is worked out again after it)."""
        try:
            async with self.store.engine.begin() as connection:
                yield connection
        finally:
            self._changed(tournament_id)

    def _changed(self, tournament_id: str, *, here: bool = True) -> None:
        """A tournament changed: its page data is worked out again when next asked for, and its
        live viewers are told (those of the cluster's other processes too, when it changed
        ``here``)."""
        self._version += 1
        self._shown.pop(tournament_id, None)
        self._building.pop(tournament_id, None)
        for changed in self._watchers.get(tournament_id, ()):
            changed.set()
        if here:
            self.tables.tell_peers({"op": "tournament-changed", "tournament": tournament_id})

    def _heard(self, change: Change) -> None:
        """Another process changed a tournament."""
        if change["op"] == "tournament-changed":
            self._changed(change["tournament"], here=False)

    # -- changing --------------------------------------------------------------------------------

    async def create(self, user: User, name: str, rules_spec: str, fmt: str, rounds: int,
                     starts_in: float, clock: int | None, public: bool,
                     show_within: int | None = None, minutes: int | None = None, *,
                     rated: bool = False, bot: str | None = None, enter: bool = True) -> dict[str, Any]:
        """A new tournament, its organiser entered first (unless not ``enter``: an organiser who
        does not play, the server's schedule). ``show_within``: the seconds a player
        has to come to their table after a round starts, or lose it by forfeit (``None``: no
        forfeits; an absent player's seat is played by the stand-in, as at every table).
        ``minutes``: an arena's length (required for an arena, which ignores ``rounds``).
        ``rated``: its games count for the family's rating; ``bot``: the level of the bot that
        plays whoever would get a bye (``None``: the bye)."""
        try:
            rules = Rules.from_spec(rules_spec)
        except (RulesError, ValueError) as error:
            raise ApiError(422, "bad-rules", str(error), field="rules") from None
        if rules.players != 2:
            raise ApiError(422, "bad-rules", "tournaments are for two-player rule sets for now "
                           f"({rules_spec!r} seats {rules.players})", field="rules")
        if fmt not in FORMATS:
            raise ApiError(422, "bad-format", f"the format must be one of {', '.join(FORMATS)}",
                           field="format")
        if (fmt == "arena") != (minutes is not None) or (
                minutes is not None and not MIN_ARENA_MINUTES <= minutes <= MAX_ARENA_MINUTES):
            raise ApiError(422, "bad-minutes", f"an arena, and only an arena, lasts {MIN_ARENA_MINUTES} to "
                           f"{MAX_ARENA_MINUTES} minutes", field="minutes")
        length = None if minutes is None else minutes * 60.0
        if show_within is not None and fmt == "arena":
            raise ApiError(422, "bad-show-within", "an arena has no forfeits: whoever is waiting is "
                           "paired", field="show_within")
        if show_within is not None and not MIN_SHOW_WITHIN <= show_within <= MAX_SHOW_WITHIN:
            raise ApiError(422, "bad-show-within", f"the time to come to a table is {MIN_SHOW_WITHIN} "
                           f"to {MAX_SHOW_WITHIN} seconds", field="show_within")
        if rated and family_of(rules) is None:
            raise ApiError(422, "bad-rated", f"{rules_spec!r} has no rating: only a family's rule set "
                           "may be rated", field="rated")
        if bot is not None and (fmt not in BOT_FORMATS or bot not in AGENTS):
            raise ApiError(422, "bad-bot", f"a bot plays the odd one out in a {' or '.join(BOT_FORMATS)} "
                           f"tournament, at one of the levels {', '.join(AGENTS)}", field="bot")
        if rated:
            await self._may_play_rated(user.id)
        if not 0 <= starts_in <= MAX_START_DELAY:
            raise ApiError(422, "bad-start", f"a tournament starts within {MAX_START_DELAY // 86400} days",
                           field="starts_in")
        async with self._lock, self.store.engine.begin() as connection:
            mine = (await connection.execute(select(func.count()).select_from(tournaments).where(
                tournaments.c.organiser == user.id,
                tournaments.c.status.in_(("open", "playing"))))).scalar_one()
            if mine >= OPEN_PER_ORGANISER:
                raise ApiError(429, "too-many-tournaments", f"an account may organise at most "
                               f"{OPEN_PER_ORGANISER} tournaments not yet over")
            if enter:
                await _not_elsewhere(connection, user.id)
            now = _now()
            secret = secrets.token_hex(32)
            tournament_id = secrets.token_urlsafe(9)
            row = {"id": tournament_id, "name": name, "organiser": user.id, "rules": rules_spec,
                   "format": fmt, "rounds": rounds, "clock": clock, "public": public,
                   "starts": now + starts_in, "created": now, "status": "open", "round": 0,
                   "secret": secret, "commitment": commitment(secret), "show_within": show_within,
                   "ends": None if length is None else now + starts_in + length, "rated": rated, "bot": bot}
            await connection.execute(tournaments.insert().values(**row))
            if enter:
                await connection.execute(entrants.insert().values(
                    tournament_id=tournament_id, user_id=user.id, username=user.username, joined=now))
        return _summary(row, int(enter))

    async def join(self, tournament_id: str, user: User) -> None:
        """Enter a player (before the start only; one tournament at a time)."""
        async with self._lock:
            row = await self._row(tournament_id)
            if row["status"] != "open":
                raise ApiError(409, "tournament-started", "this tournament has started: no one may join now")
            if row["rated"]:
                await self._may_play_rated(user.id)
            async with self._writing(row["id"]) as connection:
                count = (await connection.execute(select(func.count()).select_from(entrants).where(
                    entrants.c.tournament_id == row["id"]))).scalar_one()
                if count >= MAX_ENTRANTS:
                    raise ApiError(409, "tournament-full",
                                   f"this tournament is full ({MAX_ENTRANTS} entrants)")
                await _not_elsewhere(connection, user.id, row["id"])
                try:
                    await connection.execute(entrants.insert().values(
                        tournament_id=row["id"], user_id=user.id, username=user.username, joined=time.time()))
                except IntegrityError:
                    raise ApiError(409, "already-joined", "you have joined this tournament already") from None

    async def _may_play_rated(self, user_id: str) -> None:
        """Refuse an account banned (from play, or from rated play) a rated tournament, saying
        why (``moderation.check_may_play``)."""
        try:
            await check_may_play(self.store, user_id, rated=True)
        except ModerationError as error:
            raise ApiError(error.status, error.code, f"{error}: a rated tournament is rated play") from None

    async def withdraw(self, tournament_id: str, user: User) -> None:
        """Leave: before the start, the entry goes; after, the player is paired no more (the game
        under way plays on)."""
        async with self._lock:
            row = await self._row(tournament_id)
            where = (entrants.c.tournament_id == row["id"]) & (entrants.c.user_id == user.id)
            async with self._writing(row["id"]) as connection:
                entry = (await connection.execute(select(entrants).where(where))).mappings().first()
                if entry is None or entry["withdrawn"] is not None:
                    raise ApiError(409, "not-joined", "you are not playing in this tournament")
                if row["status"] in ("finished", "cancelled"):
                    raise ApiError(409, "tournament-over", "this tournament is over")
                if row["organiser"] == user.id and row["status"] == "open":
                    raise ApiError(409, "organiser", "the organiser cannot leave an open tournament; "
                                   "delete it instead")
                if row["status"] == "open":
                    await connection.execute(delete(entrants).where(where))
                else:
                    await connection.execute(update(entrants).where(where).values(withdrawn=row["round"]))

    async def delete(self, tournament_id: str, user: User) -> None:
        """Delete an open tournament (its organiser only; never one under way)."""
        async with self._lock:
            row = await self._row(tournament_id)
            if row["organiser"] != user.id:
                raise ApiError(403, "not-organiser", "only the tournament's organiser may do that")
            if row["status"] != "open":
                raise ApiError(409, "tournament-started", "a tournament that has started cannot be deleted")
            async with self._writing(row["id"]) as connection:
                await connection.execute(delete(entrants).where(entrants.c.tournament_id == row["id"]))
                await connection.execute(delete(tournaments).where(tournaments.c.id == row["id"]))

    async def begin(self, tournament_id: str, user: User) -> None:
        """The organiser starts the tournament now (at least two entrants)."""
        async with self._lock:
            row = await self._row(tournament_id)
            if row["organiser"] != user.id:
                raise ApiError(403, "not-organiser", "only the tournament's organiser may do that")
            if row["status"] != "open":
                raise ApiError(409, "tournament-started", "this tournament has started already")
            if len(await self._entrants(row["id"])) < 2:
                raise ApiError(409, "too-few-entrants", "a tournament needs at least two entrants")
            await self._pair(row, 1)

    # -- the driver ------------------------------------------------------------------------------

    async def step(self) -> None:
        """One look at every tournament not over that this process drives (its lease taken or
        renewed): start those due, forfeit the players who did not come in time, record finished
        tables' results, pair the next round when one is complete, finish after the last."""
        async with self.store.engine.connect() as connection:  # those open and not due take no lease
            due = (await connection.execute(select(tournaments.c.id).where(
                (tournaments.c.status == "playing")
                | ((tournaments.c.status == "open") & (tournaments.c.starts <= _now()))))).scalars().all()
        for tournament_id in due:
            if not await self._drive_lease(tournament_id):
                continue
            async with self._lock:
                row = await self._row(tournament_id)
                if row["status"] == "open" and row["starts"] <= _now():
                    if len(await self._entrants(row["id"])) >= 2:
                        await self._pair(row, 1)
                    else:
                        await self._set(row["id"], status="cancelled")
                elif row["status"] == "playing" and row["format"] == "arena":
                    await self._advance_arena(row)
                elif row["status"] == "playing":
                    await self._advance(row)

    async def _drive_lease(self, tournament_id: str) -> bool:
        """Take or renew the lease to drive this tournament: ``False`` while another process
        holds it (it renews at each of its steps; one killed lets it expire, and the first
        process to look after that takes the tournament over where it was)."""
        now = time.time()
        async with self.store.engine.begin() as connection:
            taken = await connection.execute(update(tournaments).where(
                tournaments.c.id == tournament_id,
                tournaments.c.driver.is_(None) | (tournaments.c.driver == self.me)
                | (tournaments.c.driver_until < now)).values(driver=self.me, driver_until=now + self.lease)
                .returning(tournaments.c.driver))
            return taken.first() is not None

    async def _set(self, tournament_id: str, **values: Any) -> None:
        async with self._writing(tournament_id) as connection:
            await connection.execute(update(tournaments).where(tournaments.c.id == tournament_id)
                                     .values(**values))

    async def _advance(self, row: dict[str, Any]) -> None:
        current = [g for g in await self._games(row["id"]) if g["round"] == row["round"]]
        await self._open_tables(row, current)
        if row["show_within"] is not None and await self._forfeits(row, current):
            current = [g for g in await self._games(row["id"]) if g["round"] == row["round"]]
        finished = [found for g in current if g["score"] is None and g["table_id"]
                    and (found := await self._result_of(g)) is not None]
        if finished:  # every result found in one commit, each over a game still without one
            async with self._writing(row["id"]) as connection:
                for g, score, points, forfeit in finished:
                    if g["second"] is None:  # the odd one out against the bot: the bye's points
                        score, forfeit = swiss.BYE_POINTS, None
                    await connection.execute(update(games).where(
                        games.c.tournament_id == g["tournament_id"], games.c.round == g["round"],
                        games.c.board == g["board"], games.c.score.is_(None)).values(
                        score=score, points=None if points is None else json.dumps(points), forfeit=forfeit))
            current = [g for g in await self._games(row["id"]) if g["round"] == row["round"]]
        if any(g["score"] is None for g in current):
            return
        if row["round"] >= row["rounds"]:
            await self._set(row["id"], status="finished")
            log.info("tournament %s finished", row["id"])
        else:
            await self._pair(row, row["round"] + 1)

    async def _start_arena(self, row: dict[str, Any]) -> None:
        """Start an arena (its end moved by as much as the start, when the organiser starts it
        early) and pair everyone."""
        now = _now()
        async with self._writing(row["id"]) as connection:
            changed = await connection.execute(update(tournaments).where(
                tournaments.c.id == row["id"], tournaments.c.round == 0).values(
                round=1, status="playing", round_started=now, ends=row["ends"] - row["starts"] + now))
            if changed.rowcount != 1:
                return
        log.info("arena %s started", row["id"])
        if await self._drive_lease(row["id"]):
            await self._advance_arena(await self._row(row["id"]))

    async def _advance_arena(self, row: dict[str, Any]) -> None:
        """An arena's step: record the tables over; until the end, pair whoever is waiting
        (``bench/arena.pair_waiting``: the closest points, not the opponent just met, unless
        nobody else is playing) and open their tables; after it, finish once the last table is."""
        played = await self._games(row["id"])
        finished = [found for g in played if g["score"] is None and g["table_id"]
                    and (found := await self._result_of(g)) is not None]
        if finished:
            async with self._writing(row["id"]) as connection:
                for g, score, totals, forfeit in finished:
                    await connection.execute(update(games).where(*_game_is(g), games.c.score.is_(None))
                                             .values(score=score, forfeit=forfeit,
                                                     points=None if totals is None else json.dumps(totals)))
            played = await self._games(row["id"])
        playing = {p for g in played if g["score"] is None for p in (g["first"], g["second"])}
        if _now() >= row["ends"]:
            if not playing:
                await self._set(row["id"], status="finished")
                log.info("arena %s finished", row["id"])
            return
        results = [_result(g) for g in played]
        active = [p["user_id"] for p in await self._entrants(row["id"]) if p["withdrawn"] is None]
        points = arena_points(active, results)
        waiting = {p: points[p] for p in active if p not in playing}
        last: dict[str, str] = {}
        for g in played:  # in order: each player's latest opponent
            last[g["first"]], last[g["second"]] = g["second"], g["first"]
        pairs = arena.pair_waiting(waiting, last)
        left = {p: waiting[p] for p in waiting if all(p not in pair for pair in pairs)}
        if not playing and not pairs and len(left) >= 2:  # nobody else can come: a rematch it is
            pairs = arena.pair_waiting(left)
        if not pairs:
            return
        async with self._writing(row["id"]) as connection:
            board = len(played)
            for first, second in pairs:
                await connection.execute(games.insert().values(
                    tournament_id=row["id"], round=1, board=board, first=first, second=second))
                board += 1
        await self._open_tables(row, [g for g in await self._games(row["id"]) if g["table_id"] is None])

    async def _forfeits(self, row: dict[str, Any], current: list[dict[str, Any]]) -> bool:
        """Note who came to each table of the round (a seat with a connection); once the time
        to come is over, a game with a seat never seen ends: lost by forfeit by whoever did not
        come (by both if neither did), its table closed; a player's second forfeit withdraws
        them. Whether anything changed."""
        overdue = _now() >= (row["round_started"] or 0.0) + row["show_within"]
        changed = False
        for g in current:
            if not g["second"] or g["score"] is not None or not g["table_id"]:
                continue
            table = await self._live_table(g["table_id"])
            if table is None or table.state.status == "finished":
                continue
            came = (g["came"] or 0) | sum(1 << seat for seat in range(2) if table.seats[seat].connections)
            if came == 3 or not overdue:
                if came != (g["came"] or 0):
                    async with self._writing(row["id"]) as connection:
                        await connection.execute(update(games).where(*_game_is(g)).values(came=came))
                continue
            forfeit = {0: "both", 1: "second", 2: "first"}[came]
            async with self._writing(row["id"]) as connection:
                stored = await connection.execute(update(games).where(*_game_is(g), games.c.score.is_(None))
                                                  .values(came=came, forfeit=forfeit,
                                                          score=1.0 if forfeit == "second" else 0.0))
                if stored.rowcount != 1:
                    continue
                if row["format"] == "mirrored" and g["board"] % 2 == 0:  # the second leg too, seats swapped
                    swapped = {"first": "second", "second": "first"}.get(forfeit, forfeit)
                    await connection.execute(update(games).where(
                        games.c.tournament_id == row["id"], games.c.round == g["round"],
                        games.c.board == g["board"] + 1, games.c.score.is_(None)).values(
                        forfeit=swapped, score=1.0 if swapped == "second" else 0.0))
                absent = [g["first"]] * (forfeit != "second") + [g["second"]] * (forfeit != "first")
                for user in absent:
                    await self._withdraw_after_forfeits(connection, row, user)
            changed = True
            log.info("tournament %s round %d: %s forfeited", row["id"], row["round"], forfeit)
            await self._end_table(table, "a player did not come in time: the game is lost by forfeit")
        return changed

    async def _withdraw_after_forfeits(self, connection: AsyncConnection, row: dict[str, Any],
                                       user: str) -> None:
        """Withdraw a player whose rounds lost by forfeit reached :data:`FORFEITS_WITHDRAW`."""
        lost = (await connection.execute(select(func.count(games.c.round.distinct())).where(
            games.c.tournament_id == row["id"],
            ((games.c.first == user) & games.c.forfeit.in_(("first", "both")))
            | ((games.c.second == user) & games.c.forfeit.in_(("second", "both")))))).scalar_one()
        if lost >= FORFEITS_WITHDRAW:
            await connection.execute(update(entrants).where(
                entrants.c.tournament_id == row["id"], entrants.c.user_id == user,
                entrants.c.withdrawn.is_(None)).values(withdrawn=row["round"]))

    async def _end_table(self, table: GameTable, why: str) -> None:
        """End a forfeited game's table: a match under way closed (unrated), one not begun removed."""
        if table.state.status == "waiting":
            await self.tables.remove(table, why)
            return
        with suppress(ResignRefused):
            await run_to_end(close(table, why))

    async def _live_table(self, table_id: str) -> GameTable | None:
        """A round's table, held here (``None``: gone, or held by another process for now)."""
        with suppress(Elsewhere):
            return await self.tables.get(table_id)
        return None

    async def _result_of(self, game: dict[str, Any]
                         ) -> tuple[dict[str, Any], float, list[int] | None, str | None] | None:
        """A finished table's result: the game, first's score, the totals and the forfeit
        (``closed`` for a table a moderator closed: ½ each, its totals not compared);
        ``None``: not over."""
        table = await self._live_table(game["table_id"])
        if table is None or table.state.status != "finished":
            return None
        if table.state.closed is not None:
            return game, 0.5, None, "closed"
        match, winner = table.state.match, table.state.winner
        score = 0.5 if winner is None else 1.0 if winner == 0 else 0.0
        return game, score, [int(t) for t in match.totals] if match is not None else [0, 0], None

    async def _pair(self, row: dict[str, Any], number: int) -> None:
        """Pair round ``number`` and store its games, in one commit with the tournament's round,
        then open their tables (if this process drives the tournament). An arena starts instead."""
        if row["format"] == "arena":
            await self._start_arena(row)
            return
        players = await self._entrants(row["id"])
        active = [p["user_id"] for p in players if p["withdrawn"] is None]
        results = [_result(g) for g in await self._games(row["id"])]
        if row["format"] == "mirrored":  # each pair's two legs as one game
            results = mirrored_results(results)
        played = [swiss.Game(r.first, r.second, r.score or 0.0)  # a double forfeit: never met
                  for r in results if r.forfeit != "both"]
        if len(active) < 2:
            await self._set(row["id"], status="finished")
            return
        # a pure search, off the event loop (the tables play on meanwhile)
        pairs = await asyncio.to_thread(swiss.pair_round, active, played, row["id"])
        async with self._writing(row["id"]) as connection:
            changed = await connection.execute(update(tournaments).where(
                tournaments.c.id == row["id"], tournaments.c.round == number - 1).values(
                round=number, status="playing", round_started=_now()))
            if changed.rowcount != 1:
                return
            legs = 2 if row["format"] == "mirrored" else 1  # mirrored: the second leg's seats swapped
            for index, (first, second) in enumerate(pairs):
                bye = second == ""
                for leg in range(1 if bye else legs):
                    await connection.execute(games.insert().values(
                        tournament_id=row["id"], round=number, board=index * legs + leg,
                        first=second if leg else first, second=None if bye else first if leg else second,
                        score=swiss.BYE_POINTS if bye and row["bot"] is None else None))
        log.info("tournament %s: round %d paired (%d games)", row["id"], number, len(pairs))
        if await self._drive_lease(row["id"]):  # else the process driving it opens them
            await self._open_tables(row | {"round": number},
                                    [g for g in await self._games(row["id"]) if g["round"] == number])

    async def _open_tables(self, row: dict[str, Any], current: list[dict[str, Any]]) -> None:
        """A table for each game of the round that has none yet, dealt from the round's key (the
        odd one out's against the tournament's bot, never rated)."""
        scored = {g["board"] for g in current if g["score"] is not None}
        waiting = [g for g in current if (g["second"] or g["score"] is None) and g["table_id"] is None
                   and not (row["format"] == "mirrored" and g["board"] % 2 and g["board"] - 1 not in scored)]
        if not waiting:  # (a mirrored pair's second leg opens once its first is over)
            return
        names = {p["user_id"]: p["username"] for p in await self._entrants(row["id"])}
        rules = Rules.from_spec(row["rules"])
        key = round_key(row["secret"], row["round"])
        seated = [p for g in waiting for p in (g["first"], g["second"]) if p]
        elsewhere = await self._at_rated_tables(row["id"], seated) if row["rated"] else set()
        opened: list[tuple[dict[str, Any], str]] = []
        for index, g in enumerate(waiting):
            seats = [SeatState("human", None, names[user], hash_token(new_token()), user)
                     if user else SeatState("bot", row["bot"], f"{row['bot']} bot", None)
                     for user in (g["first"], g["second"])]
            deals = arena_key(row["secret"], g["board"]) if row["format"] == "arena" else key
            busy = elsewhere & {g["first"], g["second"]}
            rated = bool(row["rated"]) and g["second"] is not None and not busy
            if busy:
                log.info("tournament %s round %d: %s at another rated table, this game is not rated",
                         row["id"], row["round"], sorted(busy))
            table = await self.tables.create(rules, seats, casual=False, public=False, clock=row["clock"],
                                             rated=rated, deals=deals)
            opened.append((g, table.id))
            if len(opened) == OPEN_BATCH or index == len(waiting) - 1:  # one commit, one push per batch
                async with self._writing(row["id"]) as connection:
                    for game, table_id in opened:
                        await connection.execute(update(games).where(*_game_is(game))
                                                 .values(table_id=table_id))
                opened = []

    async def _at_rated_tables(self, tournament_id: str, users: list[str]) -> set[str]:
        """Those of ``users`` holding a seat at an unfinished rated table not of this tournament
        (a quick pairing's, on any process): one rated game at a time, as quick pairing keeps."""
        seats, tables = db.seats.c, db.tables.c
        ours = select(games.c.table_id).where(games.c.tournament_id == tournament_id,
                                              games.c.table_id.is_not(None))
        async with self.store.engine.connect() as connection:
            return set((await connection.execute(
                select(seats.user_id).join(db.tables, tables.id == seats.table_id).where(
                    seats.user_id.in_(users), tables.rated.is_(True), tables.finished.is_(False),
                    tables.id.not_in(ours)))).scalars())


def _game_is(g: dict[str, Any]) -> tuple[ColumnElement[bool], ...]:
    """The conditions that pick this game's row."""
    return (games.c.tournament_id == g["tournament_id"], games.c.round == g["round"],
            games.c.board == g["board"])


def _now() -> float:
    """The tournaments' calendar (UNIX seconds): the server's clock, which tests set
    (:func:`kseri.server.daily.clock`)."""
    return clock().timestamp()


def _result(g: dict[str, Any]) -> Result:
    points = json.loads(g["points"]) if g["points"] else None
    return Result(g["round"], g["first"], g["second"], g["score"],
                  None if points is None else (points[0], points[1]), g["forfeit"])


def _summary(row: dict[str, Any], count: int) -> dict[str, Any]:
    """What every list shows of a tournament (never its secret before it is over)."""
    over = row["status"] in ("finished", "cancelled")
    return {"id": row["id"], "name": row["name"], "rules": row["rules"], "format": row["format"],
            "rounds": row["rounds"], "round": row["round"], "clock": row["clock"],
            "public": row["public"], "starts": row["starts"], "status": row["status"],
            "entrants": count, "commitment": row["commitment"], "show_within": row["show_within"],
            "ends": row["ends"], "rated": row["rated"], "bot": row["bot"],
            "secret": row["secret"] if over else None}


async def _not_elsewhere(connection: Any, user_id: str, here: str | None = None) -> None:
    """Refuse a player already entered in another tournament not yet over."""
    other = (await connection.execute(select(tournaments.c.id).join(
        entrants, entrants.c.tournament_id == tournaments.c.id).where(
        entrants.c.user_id == user_id, entrants.c.withdrawn.is_(None), tournaments.c.id != (here or ""),
        tournaments.c.status.in_(("open", "playing"))))).first()
    if other is not None:
        raise ApiError(409, "in-another-tournament", f"you are entered in tournament {other[0]} already: "
                       "one tournament at a time")


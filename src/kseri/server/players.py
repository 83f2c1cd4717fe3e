"""The players' layer of the server: accounts, ratings, pairing, profiles, leaderboards and
post-game analysis, tied to the tables (``docs/players.md``).

:class:`Players` lives in ``app.state.players``; :data:`router` holds its routes. The tables
tell :meth:`Players.match_over` of each match that ends (played out or abandoned), to rate it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import multiprocessing
import os
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Query, Request, WebSocket
from fastapi.responses import StreamingResponse
from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, Text, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from kseri.analysis import analyse_record
from kseri.engine import KSERI_KINDS
from kseri.records import match_from_record, record_problems
from kseri.rules import PRESETS, Rules
from kseri.server import accounts, db, guests, moderation
from kseri.server.accounts import (
    COOKIE,
    DELETED_NAME,
    AccountError,
    Accounts,
    CheckedUser,
    User,
    errors,
    username_key,
)
from kseri.server.pairing import Pairing, Playing, Seek
from kseri.server.protocol import dumps
from kseri.server.ratings import (
    REPEAT_GAMES,
    REPEAT_WINDOW,
    Rating,
    bot_ratings,
    family_of,
    rated_together,
    rating_history,
    ratings,
    ratings_of,
    record_match,
    user_ratings,
)
from kseri.server.refunds import is_annulled, match_result, rating_refunds, refunds_of
from kseri.server.registry import Change, TableRegistry
from kseri.server.room import GameTable
from kseri.server.seats import SeatState
from kseri.server.throttles import SharedBuckets, Throttles
from kseri.server.workers import end_with_server

log = logging.getLogger("kseri.server")
T = TypeVar("T")

LEADERBOARD_SIZE = 50
ACTIVE_DAYS = 30
"""A leaderboard lists players rated in the last this many days."""
ANALYSIS_NICENESS = 10
"""How much lower the analysis worker's CPU priority is than the server's."""
STATS_GAMES = 200
"""The latest games a profile's statistics are worked out from."""
UNRATED_KEPT = 10_000
"""How many unrated matches' reasons are kept for their tables' pages."""
RATED_LOCKS = 0x6B73
"""The first key of the PostgreSQL advisory locks taken per account while a rated table's seats
are bound (the second is the account id's hash)."""
UNRATED_REASONS = ("aborted", "closed", "repeated", "no-account", "error")
"""Why a rated match was left unrated: a seat never played; a moderator closed the table in
play; the pair was rated together too often lately; a seat had no account; the rating could not
be worked out or stored."""

OFFLINE_RECORD_BYTES = 256 * 1024
"""The largest offline game record an upload may send (a long match's record is ~30 KB)."""
OFFLINE_UPLOADS = (30, 3600.0)
"""At most this many tries at uploading an offline game per account within this many seconds."""
OFFLINE_PREFIX = "offline-"
"""How an uploaded offline game's id begins in a games list (live tables' ids never do)."""

offline_games = Table(
    "offline_games", db.metadata,
    Column("id", String(40), primary_key=True),  # OFFLINE_PREFIX, the game's digest, its seat
    Column("user_id", String(24), nullable=False, index=True),
    Column("digest", String(64), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("rules", Text, nullable=False),
    Column("record", Text, nullable=False),
    Column("uploaded", Float, nullable=False),
)
"""Games played offline against the computer and uploaded by a player to their history:
unrated, never rated, listed with ``offline: true``."""

analyses = Table(
    "analyses", db.metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("data", Text, nullable=False),
)

_progress: Any = None
"""In the analysis worker: the shared ``[job, plays reviewed, plays]`` the server reads."""


def _start_worker(progress: Any) -> None:
    """Run the analysis worker below the server's priority (play stays quick on a busy
    machine), telling its progress through ``progress``, and ending with the server."""
    global _progress
    _progress = progress
    with contextlib.suppress(OSError):
        os.nice(ANALYSIS_NICENESS)
    end_with_server()


def _analyse(record: dict[str, Any], job: int) -> dict[str, Any]:
    """One game's analysis as JSON (run in a worker process), its progress told as it goes."""
    shared = _progress
    total = sum(len(entry.get("plays", [])) for entry in record["rounds"])
    shared[:] = [job, 0, total]

    def reviewed() -> None:
        shared[1] += 1

    return analyse_record(record, progress=reviewed).to_json()


class Players:
    """Accounts, ratings, pairing and analyses over the server's database and live tables."""

    def __init__(self, store: db.Store, tables: TableRegistry, throttles: Throttles | None = None,
                 table_allowance: SharedBuckets | None = None) -> None:
        self.store = store
        self.tables = tables
        self.live = tables.live
        settings = self.settings = tables.settings
        limits = settings.limits
        self.accounts = Accounts(store, limits.signups_per_hour, limits.failed_signins, throttles,
                                 admit=lambda address: moderation.check_admitted(store, address))
        self.offline_uploads = (throttles or Throttles(None)).window("offline-uploads", *OFFLINE_UPLOADS)
        self.pairing = Pairing(self._seat_group, settings.bot_offer, limits, table_allowance,
                               self.rated_table_of, throttles,
                               lambda users: moderation.blocked_pairs(store, users),
                               lambda ended: moderation.log_seeks(store, ended))
        self.pairing.keeper = tables.seek_keeper(self.pairing.take_over)
        self._workers: ProcessPoolExecutor | None = None
        self._analysing: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._jobs: dict[str, int] = {}
        """The analysis job number of each table being analysed."""
        self._progress = multiprocessing.get_context().Array("q", 3)
        """The worker's ``[job, plays reviewed, plays]``."""
        self._unrated: dict[str, str] = {}
        """Why each of the latest rated matches that ended here was not rated."""
        self._binding = asyncio.Lock()
        """Held while a rated table's seats are bound (:meth:`_bind_rated`)."""
        tables.listen(self._heard)

    def start(self) -> None:
        """Begin pairing."""
        self.pairing.start()

    async def stop(self) -> None:
        """Stop pairing and the analysis workers."""
        await self.pairing.stop()
        if self._workers is not None:
            self._workers.shutdown(wait=False, cancel_futures=True)

    def _heard(self, change: Change) -> None:
        """Another process changed an account (:meth:`claim`, :meth:`delete` there)."""
        if change["op"] == "seats-claimed":
            self.seats_claimed(change["user"], [tuple(seat) for seat in change["seats"]])
        elif change["op"] == "user-deleted":
            self.user_deleted(change["user"])

    async def websocket_user(self, websocket: WebSocket) -> str | None:
        """The account a WebSocket's session cookie signs in, if any."""
        user = await self.accounts.user_of(websocket.cookies.get(COOKIE))
        return None if user is None else user.id

    # -- seats -----------------------------------------------------------------------------------

    async def claim(self, user: User, grants: list[tuple[str, str]]) -> list[dict[str, Any]]:
        """Make the seats these tokens hold the account's, in the database and live."""
        claimed = await self.accounts.claim(user, grants)
        seats = [(entry["table"], entry["seat"]) for entry in claimed]
        self.seats_claimed(user.id, seats)
        self.tables.tell_peers({"op": "seats-claimed", "user": user.id, "seats": seats})
        return claimed

    def seats_claimed(self, user_id: str, seats: list[tuple[str, int]]) -> None:
        """Bind these seats of the live tables here to the account."""
        for table_id, seat in seats:
            table = self.live.get(table_id)
            if table is not None:
                table.seats[seat].user = user_id

    async def delete(self, user: User, password: str) -> None:
        """Delete an account: its ratings and sessions go, its seats show a deleted player."""
        await self.accounts.delete(user, password, forget=[
            rating_history, ratings, rating_refunds, offline_games, *moderation.ABOUT_AN_ACCOUNT])
        self.user_deleted(user.id)
        self.tables.tell_peers({"op": "user-deleted", "user": user.id})

    def user_deleted(self, user_id: str) -> None:
        """Show a deleted account's seats at the live tables here as a deleted player's; drop
        its seeks."""
        for table in self.live.values():
            for seat in table.seats:
                if seat.user == user_id:
                    seat.user, seat.name = None, DELETED_NAME
        for seek in [s for s in self.pairing.seeks.values() if s.user == user_id]:
            self.pairing.cancel(seek)

    async def rated_table_of(self, user_id: str) -> str | None:
        """The unfinished rated table where the account holds a seat, whichever process holds
        it (the database's seats, not this process's tables)."""
        async with self.store.engine.connect() as connection:
            playing = await _rated_tables(connection, [user_id])
        return playing.get(user_id)

    async def _seat_group(self, family: str, clock: int, rated: bool, seeks: list[Seek]) -> None:
        """A table for a group of seeks: rated, each seat bound to its account; or casual.
        Raises :class:`~kseri.server.pairing.Playing` (the table removed) when an account of a
        rated group holds a seat at another unfinished rated table, on any process."""
        rules = Rules.from_spec(family)
        free = [SeatState("human", None, None, None) for _ in range(rules.players)]
        table = await self.tables.create(rules, free, casual=not rated, public=False, clock=clock,
                                         rated=rated)
        tokens = [(await table.take_seat(seat, seek.username))[1] for seat, seek in enumerate(seeks)]
        for seat, seek in enumerate(seeks):
            if seek.guest is not None:
                await guests.bind(self.store, table.id, seat, seek.guest)
        if rated:
            playing = await self._bind_rated(table.id, [seek.user for seek in seeks])
            if playing:
                await self.tables.remove(table)
                raise Playing(playing)
            for seat, seek in enumerate(seeks):
                table.seats[seat].user = seek.user
        for seat, (seek, token) in enumerate(zip(seeks, tokens, strict=True)):
            seek.seat = {"table": table.id, "seat": seat, "token": token}

    async def _bind_rated(self, table_id: str, users: list[str]) -> dict[str, str]:
        """:func:`bind_rated`, one at a time in this process (SQLite has no advisory locks)."""
        async with self._binding:
            return await bind_rated(self.store, table_id, users)

    # -- ratings ---------------------------------------------------------------------------------

    async def match_over(self, table: GameTable) -> None:
        """Rate a rated match that has ended (the tables tell of each that ends); a match left
        unrated has its reason kept for :meth:`table_ratings`."""
        reason = await self._rate(table)
        if reason is not None:
            self._unrated[table.id] = reason
            while len(self._unrated) > UNRATED_KEPT:
                del self._unrated[next(iter(self._unrated))]

    async def _rate(self, table: GameTable) -> str | None:
        """Rate the match; ``None`` once rated, else why not (:data:`UNRATED_REASONS`)."""
        if not table.rated:
            return None
        family = family_of(table.rules)
        state = table.state
        match = state.match
        if state.closed is not None:  # ended by a moderator: unrated for everyone
            return "closed"
        if family is None or match is None or state.winner is None:
            return "error"
        users = [seat.user for seat in table.seats]
        if any(user is None for user in users):
            log.warning("rated table %s has a seat without an account: not rated", table.id)
            return "no-account"
        played = {play.seat for plays in match.plays for play in plays}
        if len(played) < table.rules.players:  # a seat never played (never came): aborted
            log.warning("rated table %s: seats %s never played, the match is aborted, not rated", table.id,
                     sorted(set(range(table.rules.players)) - played))
            return "aborted"
        if await rated_together(self.store, [user or "" for user in users],
                                time.time() - REPEAT_WINDOW) >= REPEAT_GAMES:
            log.warning("rated table %s: these players were rated together %d times within %g s: not rated",
                     table.id, REPEAT_GAMES, REPEAT_WINDOW)
            return "repeated"
        teams, ranks = match_result(table.rules, users, state)
        try:
            await record_match(self.store, table.id, family, teams, ranks)
        except Exception:
            log.exception("could not rate table %s", table.id)
            return "error"
        return None

    async def table_ratings(self, table_id: str) -> dict[str, Any]:
        """The ratings at a table, for its page: each seat's rating while a rated match is
        played; once it is over, each seat's rating before and after it and the change, or
        why it was not rated (``docs/players.md``)."""
        table = self.live.get(table_id)
        if table is None:
            stored = await self.store.load(table_id)
            if stored is None:
                raise AccountError(404, "no-such-table", f"there is no table {table_id!r}")
            table = GameTable.restore(stored, self.store, self.settings, self.tables.search)
        family = family_of(table.rules)
        if not table.rated or family is None:
            return {"rated": False}
        users = [seat.user for seat in table.seats]
        known = [user for user in users if user is not None]
        async with self.store.engine.connect() as connection:
            names = dict((await connection.execute(
                select(accounts.users.c.id, accounts.users.c.username)
                .where(accounts.users.c.id.in_(known)))).tuples().all())
            after = {row.user_id: row for row in (await connection.execute(
                select(rating_history).where(rating_history.c.table_id == table_id))).all()}
            before = {}
            for user, row in after.items():
                before[user] = (await connection.execute(
                    select(rating_history.c.mu, rating_history.c.sigma)
                    .where(rating_history.c.user_id == user, rating_history.c.family == family,
                           rating_history.c.id < row.id)
                    .order_by(rating_history.c.id.desc()).limit(1))).first()
        current = await ratings_of(self.store, known, family) if not after else {}
        seats: list[dict[str, Any]] = []
        for seat, user in enumerate(users):
            entry: dict[str, Any] = {"seat": seat, "username": names.get(user or "")}
            if user in after:
                earlier = before.get(user)
                old = Rating() if earlier is None else Rating(earlier.mu, earlier.sigma)
                new = Rating(after[user].mu, after[user].sigma)
                entry |= {"before": old.to_json(), "after": new.to_json(),
                          "change": round(new.mu) - round(old.mu)}
            elif user is not None:
                entry["before"] = current[user][0].to_json()
            seats.append(entry)
        if after:
            status = "rated"
        elif table.state.status != "finished":
            status = "playing"
        elif await is_annulled(self.store, table_id):  # a refund took its rating back
            return {"rated": True, "family": family, "status": "annulled", "seats": seats}
        else:  # finished, not rated: why, or (live here, the hook still running) not yet
            reason = self._unrated.get(table_id)
            status = "pending" if reason is None and table_id in self.live else "unrated"
            if status == "unrated":
                return {"rated": True, "family": family, "status": status,
                        "reason": reason or "aborted", "seats": seats}
        return {"rated": True, "family": family, "status": status, "seats": seats}

    # -- profiles, games, data -------------------------------------------------------------------

    async def user_by_name(self, username: str) -> dict[str, Any]:
        """An account's public fields by its username (404 if none)."""
        async with self.store.engine.connect() as connection:
            row = (await connection.execute(
                select(accounts.users.c.id, accounts.users.c.username, accounts.users.c.created)
                .where(accounts.users.c.username_key == username_key(username)))).mappings().first()
        if row is None:
            raise AccountError(404, "no-such-player", f"there is no player {username!r}")
        return dict(row)

    async def games_of(self, user_id: str) -> list[dict[str, Any]]:
        """The account's finished games, newest first: table, seat, family, rated, offline
        (an uploaded offline game, its ``table`` beginning :data:`OFFLINE_PREFIX`), created."""
        async with self.store.engine.connect() as connection:
            rows = (await connection.execute(
                select(db.tables.c.id, db.tables.c.rules, db.tables.c.created, db.tables.c.rated,
                       db.seats.c.seat)
                .join(db.seats, db.seats.c.table_id == db.tables.c.id)
                .where(db.seats.c.user_id == user_id, db.tables.c.finished.is_(True)))).all()
            uploaded = (await connection.execute(
                select(offline_games.c.id, offline_games.c.rules, offline_games.c.uploaded,
                       offline_games.c.seat)
                .where(offline_games.c.user_id == user_id))).all()
        games = []
        for offline, found in ((False, rows), (True, [(*row[:3], False, row[3]) for row in uploaded])):
            for table_id, rules_text, created, rated, seat in found:
                rules = Rules.from_options(json.loads(rules_text))
                games.append({"table": table_id, "seat": seat, "side": rules.side_of(seat),
                              "family": family_of(rules), "rated": bool(rated), "offline": offline,
                              "created": created})
        games.sort(key=lambda game: game["created"], reverse=True)
        return games

    async def upload_offline(self, user: User, body: bytes) -> dict[str, Any]:
        """Add a finished offline game to the account's history: ``body`` is
        ``{"record": <kseri-record/1>, "seat": <the uploader's seat>}``, the record re-played and
        its deals verified (:func:`kseri.records.record_problems`), complete, not uploaded
        before (409), at most :data:`OFFLINE_RECORD_BYTES`. Unrated: it never touches ratings."""
        if len(body) > OFFLINE_RECORD_BYTES:
            raise AccountError(413, "record-too-large", f"an offline game's record is at most "
                               f"{OFFLINE_RECORD_BYTES} bytes, not {len(body)}")
        wait = await self.offline_uploads.wait(user.id)
        if wait > 0:
            raise AccountError(429, "too-many-uploads", f"at most {OFFLINE_UPLOADS[0]} uploads of "
                               f"offline games an hour; try again in {int(wait) + 1} seconds")
        await self.offline_uploads.hit(user.id)  # every try counts: each costs a re-play
        try:
            sent = json.loads(body)
        except ValueError as error:
            raise AccountError(422, "bad-record", f"the upload is not JSON: {error}") from None
        if not isinstance(sent, dict) or set(sent) != {"record", "seat"}:
            raise AccountError(422, "bad-record", 'send {"record": <the game record>, "seat": <your seat>}')
        record, seat = sent["record"], sent["seat"]
        problems = record_problems(record)
        if problems:
            raise AccountError(422, "bad-record", "the record does not verify: " + "; ".join(problems[:5]))
        if not record.get("complete"):
            raise AccountError(422, "not-finished", "only a finished game can be added to a history")
        if "daily" in record:
            raise AccountError(422, "bad-record", "a daily deal's record is not an offline game")
        rules = match_from_record(record).rules
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rules.players:
            raise AccountError(422, "bad-seat", f"seat must be your seat in the game, "
                               f"0 to {rules.players - 1}, not {seat!r}")
        played = json.dumps({key: record.get(key) for key in ("rules", "seed", "rounds")}, sort_keys=True)
        digest = hashlib.sha256(played.encode()).hexdigest()
        game_id = f"{OFFLINE_PREFIX}{digest[:29]}-{seat}"
        try:
            async with self.store.engine.begin() as connection:
                mine = (await connection.execute(select(offline_games.c.id).where(
                    offline_games.c.user_id == user.id, offline_games.c.digest == digest))).first()
                if mine is None:
                    await connection.execute(insert(offline_games).values(
                        id=game_id, user_id=user.id, digest=digest, seat=seat,
                        rules=json.dumps(record["rules"]), record=json.dumps(record, separators=(",", ":")),
                        uploaded=time.time()))
        except IntegrityError:
            mine = None
        else:
            if mine is None:
                return {"table": game_id, "seat": seat, "family": family_of(rules), "rated": False,
                        "offline": True}
        raise AccountError(409, "already-uploaded", "this game is already in your history" if mine is not None
                           else f"seat {seat} of this game is already in another player's history")

    async def record_of(self, table_id: str) -> dict[str, Any] | None:
        """A finished table's game record, without keeping the table in memory (an uploaded
        offline game's: the record uploaded)."""
        if table_id.startswith(OFFLINE_PREFIX):
            async with self.store.engine.connect() as connection:
                kept = (await connection.execute(select(offline_games.c.record).where(
                    offline_games.c.id == table_id))).scalar_one_or_none()
            uploaded: dict[str, Any] | None = None if kept is None else json.loads(kept)
            return uploaded
        table = self.live.get(table_id)
        if table is None:
            stored = await self.store.load(table_id)
            if stored is None:
                return None
            table = GameTable.restore(stored, self.store, self.settings, self.tables.search)
        return table.record() if table.state.match is not None else None

    async def stream_games(self, user_id: str, family: str | None,
                           result: str | None) -> AsyncIterator[str]:
        """The account's games as JSON Lines of records, one table loaded at a time."""
        for game in await self.games_of(user_id):
            if family is not None and game["family"] != family:
                continue
            record = await self.record_of(game["table"])
            if record is None:
                continue
            if result is not None and _result(record, game["side"]) != result:
                continue
            yield json.dumps({**record, "table": game["table"], "seat": game["seat"],
                              "offline": game["offline"]},
                             separators=(",", ":")) + "\n"

    async def statistics(self, user_id: str) -> dict[str, Any]:
        """Win rate, points, kseris and jack kseris per round, and the accuracy trend, over
        the latest :data:`STATS_GAMES` games."""
        games = [game for game in await self.games_of(user_id) if not game["offline"]][:STATS_GAMES]
        tally = {"games": 0, "wins": 0, "draws": 0, "rounds": 0, "points": 0, "kseris": 0, "jack_kseris": 0}
        for game in games:
            record = await self.record_of(game["table"])
            if record is None or not record["complete"]:  # a match a moderator closed: no result
                continue
            match = match_from_record(record)
            tally["games"] += 1
            outcome = _result(record, game["side"])
            tally["wins"] += outcome == "win"
            tally["draws"] += outcome == "draw"
            tally["rounds"] += len(match.round_results)
            tally["points"] += sum(result.points[game["side"]] for result in match.round_results)
            for plays in match.plays:
                marks = [m.kind for play in plays if play.seat == game["seat"] for m in play.marks]
                tally["kseris"] += sum(kind in KSERI_KINDS for kind in marks)
                tally["jack_kseris"] += sum(kind == "jack-kseri" for kind in marks)
        rounds = tally["rounds"] or 1
        accuracy = await self._accuracy_trend(games)
        return {"games": tally["games"], "wins": tally["wins"], "draws": tally["draws"],
                "win_rate": round(tally["wins"] / tally["games"], 3) if tally["games"] else None,
                "points_per_round": round(tally["points"] / rounds, 2),
                "kseris_per_round": round(tally["kseris"] / rounds, 3),
                "jack_kseris_per_round": round(tally["jack_kseris"] / rounds, 3),
                "accuracy": accuracy}

    async def _accuracy_trend(self, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        seat_of = {game["table"]: game["seat"] for game in games}
        if not seat_of:
            return []
        async with self.store.engine.connect() as connection:
            rows = (await connection.execute(
                select(analyses.c.table_id, analyses.c.data)
                .where(analyses.c.table_id.in_(list(seat_of))))).all()
        stored = {table_id: json.loads(data) for table_id, data in rows}
        trend = []
        for game in reversed(games):  # oldest first
            data = stored.get(game["table"])
            if data is not None:
                trend.append({"table": game["table"], "created": game["created"],
                              "accuracy": data["players"][seat_of[game["table"]]]["accuracy"]})
        return trend

    async def export(self, user: User) -> dict[str, Any]:
        """Everything kept about an account (its data download)."""
        profile = await self.accounts.profile_row(user.id)
        return {"format": "kseri-account/1", "account": profile,
                "ratings": await user_ratings(self.store, user.id),
                "games": await self.games_of(user.id)}

    # -- analysis --------------------------------------------------------------------------------

    async def analysis(self, table_id: str) -> dict[str, Any]:
        """A finished game's analysis: stored once computed, computed in a worker process."""
        async with self.store.engine.connect() as connection:
            data = (await connection.execute(
                select(analyses.c.data).where(analyses.c.table_id == table_id))).scalar_one_or_none()
        if data is not None:
            stored: dict[str, Any] = json.loads(data)
            return stored
        if table_id.startswith(OFFLINE_PREFIX):
            raise AccountError(404, "no-such-table", "a game played offline is analysed with "
                               "`kseri analyse`, not here")
        running = self._analysing.get(table_id)
        if running is None:
            record = await self.record_of(table_id)
            if record is None:
                raise AccountError(404, "no-such-table", f"there is no table {table_id!r}")
            if not record["complete"]:
                raise AccountError(409, "not-finished", "the match is not over yet")
            job = self._jobs[table_id] = max(self._jobs.values(), default=self._progress[0]) + 1
            running = asyncio.get_running_loop().run_in_executor(self._worker(), _analyse, record, job)
            self._analysing[table_id] = running

            def finished(_: object) -> None:
                self._analysing.pop(table_id, None)
                self._jobs.pop(table_id, None)

            running.add_done_callback(finished)
            result = await running
            async with self.store.engine.begin() as connection:
                await connection.execute(insert(analyses).values(table_id=table_id, data=dumps(result)))
            return result
        return await asyncio.shield(running)


    def _worker(self) -> ProcessPoolExecutor:
        """The analysis worker process (one, below the server's priority), started on first use."""
        if self._workers is None:
            self._workers = ProcessPoolExecutor(max_workers=1, initializer=_start_worker,
                                                initargs=(self._progress,))
        return self._workers

    async def in_worker(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in the analysis worker process, after the analyses asked before it
        (the background puzzle cutting's searches, ``server/puzzles.py``)."""
        return await asyncio.get_running_loop().run_in_executor(self._worker(), work, *args)

    async def analysis_progress(self, table_id: str) -> dict[str, Any]:
        """How far a game's analysis is: ``done`` (stored), ``running`` with the plays
        reviewed of all, ``queued`` behind others, or ``idle`` (not asked for here)."""
        job = self._jobs.get(table_id)
        if job is not None:
            running, reviewed, total = self._progress[:]
            if running == job:
                return {"status": "running", "reviewed": reviewed, "plays": total}
            return {"status": "queued"}
        async with self.store.engine.connect() as connection:
            stored = (await connection.execute(
                select(analyses.c.table_id).where(analyses.c.table_id == table_id))).first()
        return {"status": "done" if stored is not None else "idle"}


async def bind_rated(store: db.Store, table_id: str, users: list[str]) -> dict[str, str]:
    """Bind a new rated table's seats (in order) to these accounts, unless one of them holds a
    seat at another unfinished rated table: then nothing is bound, and the answer names each
    such account's table. One transaction that first takes a PostgreSQL advisory lock per
    account, so two processes of a cluster can never each seat one account at a rated table."""
    async with store.engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            for user in sorted(set(users)):
                await connection.execute(text("SELECT pg_advisory_xact_lock(:space, hashtext(:user))"),
                                         {"space": RATED_LOCKS, "user": user})
        playing = await _rated_tables(connection, users, besides=table_id)
        if not playing:
            for seat, user in enumerate(users):
                await connection.execute(db.set_seat(table_id, seat, user_id=user))
    return playing


async def _rated_tables(connection: AsyncConnection, users: list[str],
                        besides: str | None = None) -> dict[str, str]:
    """The unfinished rated table (other than ``besides``) each of these accounts holds a seat
    at, for those that hold one."""
    seats, tables = db.seats.c, db.tables.c
    query = (select(seats.user_id, tables.id).join(db.tables, tables.id == seats.table_id)
             .where(seats.user_id.in_(users), tables.rated.is_(True), tables.finished.is_(False)))
    if besides is not None:
        query = query.where(db.tables.c.id != besides)
    return {user: table_id for user, table_id in (await connection.execute(query)).all()}


def _result(record: dict[str, Any], side: int) -> Literal["win", "loss", "draw"] | None:
    """The side's result, ``None`` for a match a moderator closed before its end (none)."""
    if not record["complete"]:
        return None
    winner = record.get("winner")
    if winner is None:
        return "draw"
    return "win" if winner == side else "loss"


# -- HTTP -----------------------------------------------------------------------------------------

router = APIRouter(tags=["players"])


def _players(request: Request) -> Players:
    players: Players = request.app.state.players
    return players


@router.get("/api/players/{username}", responses=errors(404))
async def profile(username: str, request: Request) -> dict[str, Any]:
    """A player's profile: ratings per family (with history), rating refunds, statistics (of
    the games played here) and how many games played offline were added to the history."""
    players = _players(request)
    user = await players.user_by_name(username)
    return {"username": user["username"], "created": user["created"],
            "ratings": await user_ratings(players.store, user["id"]),
            "refunds": await refunds_of(players.store, user["id"]),
            "statistics": await players.statistics(user["id"]),
            "offline_games": sum(game["offline"] for game in await players.games_of(user["id"]))}


@router.get("/api/players/{username}/games", response_class=StreamingResponse,
            responses={200: {"content": {"application/x-ndjson": {}}}, **errors(404, 422)})
async def games(username: str, request: Request,
                family: Annotated[str | None, Query(max_length=40)] = None,
                result: Literal["win", "loss", "draw"] | None = None) -> StreamingResponse:
    """A player's finished games, newest first, as JSON Lines of game records (streamed), each
    with its ``table`` and the player's ``seat``."""
    players = _players(request)
    user = await players.user_by_name(username)
    return StreamingResponse(players.stream_games(user["id"], family, result),
                             media_type="application/x-ndjson")


@router.post("/api/offline-games", status_code=201, responses=errors(401, 403, 409, 413, 422, 429))
async def upload_offline(user: CheckedUser, request: Request) -> dict[str, Any]:
    """Add a finished game played offline to the signed-in player's history, unrated and marked
    offline: the body is ``{"record": <kseri-record/1>, "seat": <your seat>}`` (at most 256 KB),
    re-played and verified; the same game again is refused (409); 30 an hour."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > OFFLINE_RECORD_BYTES:
        raise AccountError(413, "record-too-large", f"an offline game's record is at most "
                           f"{OFFLINE_RECORD_BYTES} bytes, not {declared}")
    return await _players(request).upload_offline(user, await request.body())


@router.get("/api/offline-games/{game_id}", responses=errors(404))
async def offline_game(game_id: str, request: Request) -> dict[str, Any]:
    """The record of a game played offline and added to a history (its replay on the page)."""
    record = await _players(request).record_of(game_id[:40]) if game_id.startswith(OFFLINE_PREFIX) else None
    if record is None:
        raise AccountError(404, "no-such-game", f"there is no offline game {game_id[:40]!r}")
    return record


@router.get("/api/leaderboard/{family}", responses=errors(404))
async def leaderboard(family: str, request: Request) -> dict[str, Any]:
    """The top 50 of a family among players rated in the last 30 days."""
    if family not in PRESETS:
        raise AccountError(404, "no-such-family", f"unknown family {family!r}; the families are: "
                           + ", ".join(PRESETS))
    since = time.time() - ACTIVE_DAYS * 86400
    users = accounts.users
    async with _players(request).store.engine.connect() as connection:
        rows = (await connection.execute(
            select(users.c.username, ratings.c.mu, ratings.c.sigma, ratings.c.games)
            .join(ratings, ratings.c.user_id == users.c.id)
            .where(ratings.c.family == family, ratings.c.updated >= since)
            .order_by(ratings.c.mu.desc()).limit(LEADERBOARD_SIZE))).all()
    return {"family": family, "players": [
        {"rank": place, "username": name, "games": played, **Rating(mu, sigma).to_json()}
        for place, (name, mu, sigma, played) in enumerate(rows, start=1)]}


@router.get("/api/ratings/bots")
async def bots() -> dict[str, Any]:
    """Each bot level's strength per family on the players' rating scale."""
    return {"families": bot_ratings()}


@router.get("/api/tables/{table_id}/ratings", responses=errors(404))
async def table_ratings(table_id: str, request: Request) -> dict[str, Any]:
    """A table's ratings: while a rated match is played, each seat's; once it is over, each
    seat's before and after it and the change (``status`` ``rated``), ``pending`` while it is
    being rated, or ``unrated`` with the ``reason``; ``{"rated": false}`` at a casual table."""
    if len(table_id) > 40:
        raise AccountError(404, "no-such-table", "there is no such table")
    return await _players(request).table_ratings(table_id)


@router.get("/api/tables/{table_id}/analysis/progress")
async def analysis_progress(table_id: str, request: Request) -> dict[str, Any]:
    """How far the game's analysis is (``status``: ``idle``, ``queued``, ``running`` with
    ``reviewed`` of ``plays``, or ``done``), for a page to show while it waits."""
    return await _players(request).analysis_progress(table_id[:40])


@router.get("/api/tables/{table_id}/analysis", responses=errors(404, 409))
async def analysis(table_id: str, request: Request) -> dict[str, Any]:
    """The master's review of a finished game (``docs/analysis.md``); the first request computes
    it off the event loop, later ones read it back."""
    if len(table_id) > 40:
        raise AccountError(404, "no-such-table", "there is no such table")
    return await _players(request).analysis(table_id)

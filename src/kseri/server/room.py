"""One game table in the server: its seats, its live match, and the requests that change it.

A :class:`GameTable` takes requests (a hello, a play, a ready, a hint, a phrase), applies the resulting
events to its match, commits them (:class:`~kseri.server.eventlog.EventLog`, sealed by its
:class:`Fence`), and only then tells its audience (:class:`~kseri.server.audience.Audience`),
each connection with the view of its own seat; its clock
(:class:`~kseri.server.clock.TurnClock`) takes the automatic steps: deals, bots' plays,
stand-ins and timed-out moves.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

from kseri.cards import Card, CardError
from kseri.engine import IllegalPlayError
from kseri.records import record_from_match
from kseri.rules import Rules
from kseri.server import db
from kseri.server.audience import RESTART, Audience, Connection
from kseri.server.clock import TurnClock
from kseri.server.eventlog import Event, EventLog, GameState, RoundSecret
from kseri.server.hints import Hints
from kseri.server.history import auto_reason
from kseri.server.passplay import held_seats, show
from kseri.server.protocol import (
    LEAN,
    PROTOCOLS,
    Hello,
    Hint,
    HintValues,
    Ping,
    Play,
    Pong,
    ProtocolError,
    Ready,
    Request,
    Say,
    Show,
    Shown,
    Sync,
    Welcome,
    dumps,
)
from kseri.server.seats import SeatState, hash_token, new_token
from kseri.server.settings import ServerSettings
from kseri.server.talk import MayTalk, Talk, allow_everyone
from kseri.server.workers import CHEAP_LEVELS, SearchPool, earlier_views

log = logging.getLogger("kseri.server")

STANDIN_LEVEL = "expert"
"""Who plays for an absent player (strong, and quick enough to keep a table moving)."""


class Fence(Protocol):
    """What guards a table's commits: in a cluster, its lease (``server/cluster.py``)."""

    def seal(self, table: GameTable, batch: db.Batch) -> None:
        """Add to ``batch`` the checks its commit must pass (the lease's fencing number)."""

    def lost(self, table: GameTable) -> None:
        """A commit was refused by the fence: another process owns the table now."""

    def turn_began(self, table: GameTable) -> float | None:
        """When (``time.monotonic()``) the turn of a table just built or restored began, if the
        fence knows it (a clock keeps counting across processes); ``None``: now."""


class Unfenced:
    """The fence of a table no other process can own (a single process)."""

    def seal(self, table: GameTable, batch: db.Batch) -> None:
        """Nothing to check."""

    def lost(self, table: GameTable) -> None:
        """Never happens: nothing is checked."""

    def turn_began(self, table: GameTable) -> float | None:
        """Unknown: the turn begins now."""
        return None


UNFENCED = Unfenced()

T = TypeVar("T")

_running: set[asyncio.Task[Any]] = set()
"""The changes :func:`run_to_end` runs, held until they end (the loop keeps only weak ones)."""


async def run_to_end(change: Coroutine[Any, Any, T]) -> T:
    """Run a change to a table (a move, a join, a resignation, a rematch) to its end and return
    its result: once begun it is stored and told to everyone even when the request that asked is
    cancelled meanwhile (its connection dropped, the server stopping), which stopped half-way
    would leave it applied in memory, perhaps stored, but never told nor logged as committed."""
    task = asyncio.ensure_future(change)
    _running.add(task)
    task.add_done_callback(_ended)
    return await asyncio.shield(task)


def _ended(task: asyncio.Task[Any]) -> None:
    """A change run to its end: let it go, its failure seen (the request may be gone)."""
    _running.discard(task)
    if not task.cancelled():
        task.exception()


Finished = Callable[["GameTable"], Coroutine[Any, Any, None]]
"""Told of a match played or abandoned to its end (the players' layer rates it)."""


class GameTable:
    """A live table."""

    def __init__(self, table_id: str, row: dict[str, Any], seats: list[SeatState],
                 rounds: list[RoundSecret], store: db.Store, settings: ServerSettings,
                 search: SearchPool, *, fence: Fence = UNFENCED, finished: Finished | None = None,
                 may_talk: MayTalk = allow_everyone) -> None:
        self.id = table_id
        self.rules = Rules.from_options(json.loads(row["rules"]))
        self.rules_json = self.rules.options()
        self.casual: bool = row["casual"]
        self.public: bool = row["public"]
        self.clock: int | None = row["clock"]
        self.created: float = row["created"]
        self.rematch: str | None = row["rematch"]
        self.rematch_of: str | None = row["rematch_of"]
        self.rated: bool = bool(row.get("rated"))
        self.deals: str | None = row.get("deals")
        """A tournament round's deal key: every table with it deals the same cards, round after
        round, from the first dealer 0, and takes no cut (``server/tournaments.py``)."""
        """A rated match (``server/ratings.py``): abandoning it past the grace period loses it."""
        self.finished = finished
        """Told once a match played or abandoned here is over (the ratings)."""
        self.seats = seats
        self.log = EventLog(table_id, self.rules, rounds, store)
        """The committed events and the state they make."""
        self.settings = settings
        self.lock = asyncio.Lock()
        self.audience = Audience(self, self.log, settings.limits.max_backlog)
        """The connections, and what each is sent."""
        self.timer = TurnClock(table_id, settings, self.clock, self.log, seats, self._step)
        """When the turn began, and when the next automatic step is due."""
        self.touched = time.monotonic()
        """When the table last changed (finished tables nobody watches are let go after a while)."""
        self.search = search
        self._bot_seed = secrets.randbits(32)
        self.hints = Hints(settings, search)
        self.talk = Talk(settings, self.rated, may_talk)
        """The table talk: fixed phrases, told to everyone, never stored."""
        self.fence = fence
        """Guards each commit (in a cluster, the lease's fencing number)."""
        self.stopped: tuple[str, int] | None = None
        """Why this copy of the table was let go (:meth:`stop`), and the close code that
        says so, if it was."""

    @property
    def state(self) -> GameState:
        """The match as the committed events make it."""
        return self.log.state

    @property
    def events(self) -> list[Event]:
        """The committed events."""
        return self.log.events

    @property
    def rounds(self) -> list[RoundSecret]:
        """Each round's fairness (one ahead of the rounds dealt)."""
        return self.log.rounds

    @property
    def connections(self) -> set[Connection]:
        """The connections to the table."""
        return self.audience.connections

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def restore(cls, stored: db.StoredTable, store: db.Store, settings: ServerSettings,
                search: SearchPool, *, fence: Fence = UNFENCED,
                finished: Finished | None = None, may_talk: MayTalk = allow_everyone) -> GameTable:
        """Rebuild a table from the database by replaying its log through the engine."""
        seats = [SeatState(s["kind"], s["level"], s["name"], s["token_hash"], s.get("user_id"))
                 for s in stored.seats]
        rounds = [RoundSecret(r["secret"], r["commitment"], r["dealer"]) for r in stored.rounds]
        table = cls(stored.row["id"], stored.row, seats, rounds, store, settings, search,
                    fence=fence, finished=finished, may_talk=may_talk)
        table.log.replay(stored.events)
        table._resume_clock()
        return table

    @classmethod
    def new(cls, table_id: str, rules: Rules, seats: list[SeatState], *, casual: bool, public: bool,
            clock: int | None, store: db.Store, settings: ServerSettings, search: SearchPool,
            rematch_of: str | None = None, rated: bool = False, fence: Fence = UNFENCED,
            finished: Finished | None = None, may_talk: MayTalk = allow_everyone,
            deals: str | None = None) -> tuple[GameTable, db.Batch]:
        """A new table and the batch that stores it (sealed by its ``fence``; ``deals``: a
        tournament round's deal key, see :attr:`deals`)."""
        first_dealer = 0 if deals else secrets.randbelow(rules.players)
        row = {"id": table_id, "created": time.time(), "rules": dumps(rules.options()),
               "casual": casual, "public": public, "clock": clock, "first_dealer": first_dealer,
               "finished": False, "rematch_of": rematch_of, "rematch": None, "rated": rated,
               "deals": deals}
        fair = RoundSecret.dealt(deals, 0, first_dealer) if deals else RoundSecret.fresh(first_dealer)
        table = cls(table_id, row, seats, [fair], store, settings, search, fence=fence, finished=finished,
                    may_talk=may_talk)
        table._resume_clock()
        batch = db.Batch()
        batch.insert(db.tables, **row)
        for index, seat in enumerate(seats):
            batch.insert(db.seats, table_id=table_id, seat=index, kind=seat.kind, level=seat.level,
                         name=seat.name, token_hash=seat.token_hash, user_id=seat.user)
        batch.insert(db.rounds, table_id=table_id, round=0, secret=fair.secret,
                     commitment=fair.commitment, dealer=fair.dealer)
        fence.seal(table, batch)
        return table, batch

    def _resume_clock(self) -> None:
        """Count the turn from when it began, on whichever process (as the fence knows it)."""
        began = self.fence.turn_began(self)
        if began is not None:
            self.timer.turn_since = self.timer.pending_since = began

    # -- public information --------------------------------------------------------------------

    def table_json(self, state: GameState | None = None) -> dict[str, Any]:
        """The table as everyone may see it (``state``: as of an earlier point of the log)."""
        state = state or self.state
        match = state.match
        now = time.monotonic()
        return {
            "id": self.id,
            "rules": self.rules_json,
            "casual": self.casual,
            "public": self.public,
            "clock": self.clock,
            "status": state.status,
            "seats": [
                {"seat": index, "kind": seat.kind, "name": seat.name, "level": seat.level,
                 "taken": seat.taken, "connected": seat.kind == "bot" or seat.connections > 0,
                 "ready": seat.kind == "bot" or index in state.readies,
                 "standin": self.timer.away(index, now)}
                for index, seat in enumerate(self.seats)
            ],
            "totals": list(match.totals) if match else [0] * self.rules.sides,
            "target": match.target if match else self.rules.target,
            "round": match.round_index if match else 0,
            "winner": state.winner,
            "invite": f"/t/{self.id}",
            "rematch": self.rematch,
        }

    def turn_deadline(self) -> dict[str, float] | None:
        """When the play due must be made (:meth:`TurnClock.deadline`)."""
        return self.timer.deadline()

    # -- seats ---------------------------------------------------------------------------------

    def seat_of_user(self, user: str) -> int | None:
        """The first seat the account ``user`` holds here."""
        return next((index for index, seat in enumerate(self.seats) if seat.user == user), None)

    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is."""
        digest = hash_token(token)
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return index
        return None

    async def take_seat(self, seat: int | None, name: str | None, *,
                        token: str | None = None) -> tuple[int, str]:
        """Give a free human seat (``None``: the first) to a newcomer; returns it and its token
        (``token``, or a new one). Raises :class:`LookupError` naming the problem when there is
        none."""
        async with self.lock:
            if self.state.status == "finished":
                raise LookupError("the match is over")
            if seat is None:
                free = [i for i, s in enumerate(self.seats) if not s.taken]
                if not free:
                    raise LookupError("every seat is taken")
                seat = free[0]
            if not 0 <= seat < len(self.seats):
                raise LookupError(f"there is no seat {seat}: seats are 0 to {len(self.seats) - 1}")
            if self.seats[seat].taken:
                raise LookupError(f"seat {seat} is taken")
            token = token or new_token()
            name = name or f"Player {seat + 1}"
            batch = db.Batch()
            batch.updates.append(db.set_seat(self.id, seat, token_hash=hash_token(token), name=name))
            taker = self.seats[seat]
            taker.token_hash, taker.name, taker.last_seen = hash_token(token), name, time.monotonic()
            self.timer.pending_since = time.monotonic()
            try:
                await self._emit("seat", seat, {"state": "joined"}, batch)
            except ProtocolError:
                taker.token_hash = taker.name = None
                raise
            return seat, token

    # -- requests --------------------------------------------------------------------------------

    async def handle(self, connection: Connection, message: Request) -> None:
        """Answer one parsed client message (raises :class:`ProtocolError` to refuse it)."""
        if isinstance(message, Ping):
            connection.send(Pong())
            return
        if isinstance(message, Hello):
            await self._hello(connection, message)
            return
        if not connection.joined:
            raise ProtocolError("bad-message", "say hello first")
        if isinstance(message, Hint):
            connection.send(await self._hint(connection.seat))
            return
        if isinstance(message, Say):
            seat = connection.seat
            user = None if seat is None else self.seats[seat].user or connection.user
            self.audience.tell((await self.talk.say(seat, user, message.phrase)).encode())
            return
        if isinstance(message, Show | Sync):
            if isinstance(message, Sync) and connection.protocol != LEAN:
                raise ProtocolError("bad-message", "sync is protocol 2's: a v1 client gets every state")
            async with self.lock:
                if isinstance(message, Show):
                    show(connection, message.seat)
                    connection.send(Shown(message.seat))
                connection.send_text(self.audience.full(connection))
            return
        seats = connection.held if isinstance(message, Ready) and connection.held else (connection.seat,)
        if seats[0] is None:
            raise ProtocolError("not-seated", "spectators cannot play; join a seat first")
        await self.lock.acquire()
        # once begun, a move runs to its end (stored, then told to everyone) even when the
        # connection that asked is dropped meanwhile (its handler cancelled): stopped half-way,
        # it would be applied and stored but never told, and the table would wait forever
        await run_to_end(self._move([seat for seat in seats if seat is not None], message))

    async def _move(self, seats: list[int], message: Play | Ready) -> None:
        """Play for ``seats[0]``, or get every one of ``seats`` ready (the caller acquired
        :attr:`lock`; released here)."""
        try:
            if isinstance(message, Play):
                await self._play_request(seats[0], message)
            else:
                for seat in seats:
                    await self._ready(seat, message)
        finally:
            self.lock.release()

    async def _hint(self, seat: int | None) -> HintValues:
        """The master's value of each legal play for ``seat`` (casual tables, on its turn)."""
        if not self.casual:
            raise ProtocolError("hints-off", "this table does not allow hints")
        if seat is None:
            raise ProtocolError("not-seated", "spectators get no hints")
        match = self.state.match
        if match is None or match.turn is None or self.state.status == "finished":
            raise ProtocolError("not-playing", "no play is due")
        if match.turn != seat:
            raise ProtocolError("not-your-turn", f"it is seat {match.turn}'s turn, not seat {seat}'s")
        return await self.hints.ask(match.view(seat), self.state.seq)

    def record(self) -> dict[str, Any]:
        """The game record (``kseri.records``) with every revealed fairness proof."""
        match = self.state.match
        if match is None:
            raise LookupError("the first round has not been dealt")
        proofs = [{"commitment": e["commitment"], "secret": e["secret"], "cut": e["cut"]}
                  for e in self.state.fairness()["revealed"]]
        names = [seat.name or f"Player {index + 1}" for index, seat in enumerate(self.seats)]
        return record_from_match(match, names=names, fairness=proofs)

    async def _hello(self, connection: Connection, message: Hello) -> None:
        if message.protocol not in PROTOCOLS:
            raise ProtocolError("unsupported-protocol", f"this server speaks protocols "
                                f"{' and '.join(map(str, PROTOCOLS))}, not {message.protocol}")
        if connection.joined:
            raise ProtocolError("bad-message", "hello was already said on this connection")
        async with self.lock:
            if self.stopped is not None:  # let go while the connection was on its way in
                connection.drop(*self.stopped)
                return
            seat = None
            held: tuple[int, ...] = ()
            if message.tokens is not None:
                if message.token is not None:
                    raise ProtocolError("bad-message", "send token or tokens, not both")
                held = held_seats(self.seats, message.tokens)
            elif message.token is not None:
                seat = self.seat_of(message.token)
                if seat is None:
                    raise ProtocolError("bad-token", "that token holds no seat at this table")
            elif connection.user is not None:
                seat = self.seat_of_user(connection.user)
            for each in held or ((seat,) if seat is not None else ()):
                same = sum(1 for c in self.connections if each in c.present)
                if same >= self.settings.limits.connections_per_seat:
                    raise ProtocolError("too-many-connections", f"a seat may have at most "
                                        f"{self.settings.limits.connections_per_seat} connections at once")
            connection.seat, connection.held, connection.protocol = seat, held, message.protocol
            backlog = ([self.audience.full(connection)] if message.protocol == LEAN
                       else self.audience.backlog(seat, message.since))
            connection.joined = True
            connection.send(Welcome(self.table_json(), seat, self.talk.allowed, message.protocol))
            for text in backlog:
                connection.send_text(text)
            self.audience.connections.add(connection)
            arrived = False
            for each in connection.present:
                state = self.seats[each]
                state.connections += 1
                arrived = arrived or state.connections == 1
            if arrived:
                self._presence()

    async def leave(self, connection: Connection) -> None:
        """Forget a closed connection; a seat left empty starts its grace period."""
        if connection not in self.connections:
            return
        async with self.lock:
            self.audience.connections.discard(connection)
            gone = False
            for seat in connection.present:
                state = self.seats[seat]
                state.connections -= 1
                if state.connections == 0:
                    state.last_seen = time.monotonic()
                    gone = True
            if gone:
                self._presence()

    def _presence(self) -> None:
        """Tell everyone who is connected now (not stored: comings and goings are not events)."""
        self.audience.presence(self.table_json())
        self.timer.schedule()

    async def _play_request(self, seat: int, message: Play) -> None:
        state = self.state
        match = state.match
        if match is None or match.turn is None or state.status == "finished":
            raise ProtocolError("not-playing", "no play is due: " + (
                "the first round has not been dealt" if match is None else
                "the match is over" if state.status == "finished" else "the round is over"))
        if not state.turn_seq <= message.seq <= state.seq:
            raise ProtocolError("stale", f"seq {message.seq} is out of date: the turn began at "
                                f"{state.turn_seq} and the latest state is {state.seq}")
        if match.turn != seat:
            raise ProtocolError("not-your-turn", f"it is seat {match.turn}'s turn, not seat {seat}'s")
        try:
            card = Card(message.card)
        except CardError as error:
            raise ProtocolError("not-in-hand", str(error)) from None
        await self._play(seat, card)

    async def _ready(self, seat: int, message: Ready) -> None:
        state = self.state
        if not state.between_rounds() or state.status == "finished":
            raise ProtocolError("not-playing", "no deal is pending: " + (
                "the match is over" if state.status == "finished" else "a round is being played"))
        if seat in state.readies:
            return
        cutter = state.cutter(state.next_round())
        data = ({"cut": message.cut} if seat == cutter and message.cut is not None and not self.deals
                else None)
        await self._emit("ready", seat, data)

    # -- changing the match --------------------------------------------------------------------

    async def _play(self, seat: int, card: Card, auto: str | None = None) -> None:
        state = self.state
        event = self.log.next("play", seat, str(card), {"auto": auto} if auto else None)
        try:
            shown = state.apply(event)
        except IllegalPlayError as error:
            raise ProtocolError("not-in-hand", str(error)) from None
        applied = [(event, shown)]
        batch = db.Batch()
        match = state.match
        assert match is not None
        rounds_before = len(self.rounds)
        if match.is_round_over():
            applied.append(self.log.derived("round-end", {"round": match.round_index}))
            if match.is_over():
                applied.append(self.log.derived("match-end", {"winner": match.winner}))
                batch.updates.append(db.set_table(self.id, finished=True))
            else:
                dealer = (match.dealer + 1) % self.rules.players
                fair = (RoundSecret.dealt(self.deals, len(self.rounds), dealer) if self.deals
                        else RoundSecret.fresh(dealer))
                self.rounds.append(fair)
                batch.insert(db.rounds, table_id=self.id, round=len(self.rounds) - 1, secret=fair.secret,
                             commitment=fair.commitment, dealer=fair.dealer)
        try:
            await self._commit([e for e, _ in applied], batch)
        except Exception:
            del self.rounds[rounds_before:]
            raise
        now = time.monotonic()
        self.timer.turn_since = now
        if match.is_round_over():
            self.timer.pending_since = now
        self.audience.broadcast(applied)
        self.timer.schedule()
        if match.is_over():
            self.tell_finished()

    def tell_finished(self) -> None:
        """Tell :attr:`finished` off the caller's path."""
        if self.finished is not None:
            self.timer.spawn(self.finished(self))

    async def _forfeit(self, seat: int) -> None:
        """End a rated match abandoned by ``seat``: its side loses, the best other side wins."""
        match = self.state.match
        assert match is not None
        loser = self.rules.side_of(seat)
        winner = max((side for side in range(self.rules.sides) if side != loser),
                     key=lambda side: (match.totals[side], -side))
        batch = db.Batch()
        batch.updates.append(db.set_table(self.id, finished=True))
        await self._emit("match-end", None, {"winner": winner, "forfeit": seat}, batch)
        self.tell_finished()

    async def _deal(self) -> None:
        state = self.state
        self.timer.turn_since = time.monotonic()
        await self._emit("round-start", None, {"round": state.next_round(), "cut": state.cut})

    async def _emit(self, kind: str, seat: int | None, data: dict[str, Any] | None,
                    batch: db.Batch | None = None) -> None:
        """Apply, store and announce one event (not a play: see :meth:`_play`)."""
        event = self.log.next(kind, seat, data=data)
        await self.settle([(event, self.state.apply(event))], batch)

    async def settle(self, applied: list[tuple[Event, dict[str, Any]]],
                     batch: db.Batch | None = None) -> None:
        """Commit events already applied (with ``batch``), then tell everyone and set the clock
        (the caller holds :attr:`lock`)."""
        await self._commit([event for event, _ in applied], batch)
        self.audience.broadcast(applied)
        self.timer.schedule()

    async def _commit(self, new: list[Event], batch: db.Batch | None = None) -> None:
        """Store events already applied to :attr:`state` (sealed by the fence); on failure the
        state is rebuilt from the stored log and ``server-error`` raised."""
        batch = batch or db.Batch()
        self.fence.seal(self, batch)
        try:
            await self.log.commit(new, batch)
        except Exception as error:
            if isinstance(error, db.FenceLost):
                log.warning("table %s: the lease's fence refused a commit; another process owns it", self.id)
                self.fence.lost(self)
            else:
                log.exception("could not store events at table %s", self.id)
            raise ProtocolError("server-error", "the server could not store that; nothing changed") from None
        self.touched = time.monotonic()

    def unjoined(self, now: float, after: float) -> bool:
        """Whether the table still waits for players ``after`` seconds after it was opened
        (UNIX time ``now``), and nobody is connected to it."""
        return (self.state.status == "waiting" and now - self.created > after and not self.connections
                and not all(seat.taken for seat in self.seats))

    def idle(self, now: float, after: float) -> bool:
        """Whether the match is over, nobody is connected and nothing happened for ``after`` s."""
        return self.state.status == "finished" and not self.connections and now - self.touched > after

    async def record_rematch(self, rematch_id: str) -> None:
        """Store and announce where the rematch is (the caller holds :attr:`lock`)."""
        batch = db.Batch()
        batch.updates.append(db.set_table(self.id, rematch=rematch_id))
        self.rematch = rematch_id
        try:
            await self._emit("rematch", None, {"table": rematch_id}, batch)
        except ProtocolError:
            self.rematch = None
            raise

    # -- bots, stand-ins, clocks and deals -----------------------------------------------------

    async def _step(self) -> None:
        """The automatic step the clock found due: a deal, a forfeit, or a bot's, a stand-in's or
        a timed-out play (through the same path as a person's)."""
        async with self.lock:
            due = self.timer.due(time.monotonic())
            if due is None or due > time.monotonic() + 0.002:
                self.timer.schedule()
                return
            if self.state.between_rounds():
                await self._deal()
                return
            match = self.state.match
            assert match is not None and match.turn is not None
            seat = match.turn
            if self.rated and self.timer.away(seat, time.monotonic()):
                await self._forfeit(seat)
                return
            level = self.seats[seat].level if self.seats[seat].kind == "bot" else STANDIN_LEVEL
            seed = (self._bot_seed + self.state.seq) % 2**32
            playing = level or STANDIN_LEVEL
            earlier = () if playing in CHEAP_LEVELS else earlier_views(match, seat)
            card = await self.search.choose(playing, seed, match.view(seat), earlier)
            await self._play(seat, card, auto_reason(self.seats[seat].kind, self.timer.ran_out(due)))

    def start(self) -> None:
        """Begin the table's automatic steps (after creation or restoration)."""
        self.timer.schedule()

    def stop(self, reason: str, code: int = RESTART) -> None:
        """Let this copy of the table go for good: cancel its timers and close its connections
        (local and relayed) with ``reason`` and ``code``, as well as any connection that found it
        just before and says hello after. The code is by default the reconnect code
        (:data:`~kseri.server.audience.RESTART`), so they find where the table is now;
        :data:`~kseri.server.audience.DROPPED` for a table removed."""
        self.stopped = reason, code
        self.timer.stop()
        for connection in list(self.connections):
            connection.drop(reason, code)

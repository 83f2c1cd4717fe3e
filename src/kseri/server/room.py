"""One game table in the server: its seats, its event log, its live match, its connections.

Everything that changes a table is an :class:`Event` with the table's next sequence number.
:class:`GameState` applies events to a :class:`~kseri.engine.Match`, the same way live, on
start-up (replaying the stored log) and for a reconnecting client's missed states. A
:class:`GameTable` takes requests, commits the resulting events, and only then tells every
connection, each with the view of its own seat.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Protocol

from fastapi import WebSocket
from orjson import Fragment

from kseri.cards import Card, CardError
from kseri.engine import Deal, IllegalPlayError, Match, Phase, SpectatorView, View
from kseri.fairness import commitment, deal_seed, new_secret
from kseri.records import record_from_match
from kseri.rules import Rules
from kseri.server import db
from kseri.server.history import RoundHistory, auto_reason
from kseri.server.limits import TokenBucket
from kseri.server.protocol import (
    PROTOCOL,
    Hello,
    Hint,
    HintValues,
    Ping,
    Play,
    Pong,
    Presence,
    ProtocolError,
    Ready,
    ServerMessage,
    State,
    Welcome,
    dumps,
)
from kseri.server.settings import ServerSettings
from kseri.server.workers import SearchBusy, SearchPool
from kseri.views import play_to_json, result_to_json, view_to_json

log = logging.getLogger("kseri.server")

STANDIN_LEVEL = "expert"
"""Who plays for an absent player (strong, and quick enough to keep a table moving)."""


def hash_token(token: str) -> str:
    """What the database keeps of a seat's token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A seat's secret token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def rematch_token(token: str, rematch_id: str) -> str:
    """The token of a player's seat at a rematch, derived from their seat's token at the match
    before: only they can compute it, and asking for the rematch again gives the same one."""
    digest = hmac.new(token.encode(), b"rematch:" + rematch_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a table's log."""

    seq: int
    kind: str
    """``play``, ``ready``, ``round-start``, ``round-end``, ``match-end``, ``resign``, ``seat`` or
    ``rematch``."""
    seat: int | None = None
    card: str | None = None
    data: dict[str, Any] | None = None

    def row(self, table_id: str) -> dict[str, Any]:
        """The event as a database row."""
        return {"table_id": table_id, "seq": self.seq, "kind": self.kind, "seat": self.seat,
                "card": self.card, "data": None if self.data is None else dumps(self.data)}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Event:
        """The inverse of :meth:`row`."""
        data = None if row["data"] is None else json.loads(row["data"])
        return cls(row["seq"], row["kind"], row["seat"], row["card"], data)


@dataclass(slots=True)
class RoundSecret:
    """A round's fairness: the server's secret, its published hash, the dealer and the cut."""

    secret: str
    commitment: str
    dealer: int
    cut: str | None = None

    @classmethod
    def fresh(cls, dealer: int) -> RoundSecret:
        """A new secret for a round dealt by ``dealer``."""
        secret = new_secret()
        return cls(secret, commitment(secret), dealer)


class GameState:
    """A table's match as its events so far make it."""

    def __init__(self, table_id: str, rules: Rules, rounds: list[RoundSecret]) -> None:
        self.table_id = table_id
        self.rules = rules
        self.rounds = rounds
        self.match: Match | None = None
        self.seq = 0
        self.turn_seq = 0
        """The last event that changed whose turn it is (a play must have seen it)."""
        self.readies: set[int] = set()
        self.cut = ""
        self.forfeit: tuple[int, int] | None = None
        """A rated match abandoned: the seat that forfeited it and the side that won."""
        self.history = RoundHistory()
        # JSON texts shared by every seat's view and by many moments in a row (view_text)
        self._rules_text = Fragment(dumps(rules.options()))
        self._results_text = (0, Fragment("[]"))
        self._plays_text: tuple[tuple[int, int], Fragment] = ((-1, 0), Fragment("[]"))
        self._play_texts: list[str] = []
        self._fairness_text: tuple[tuple[int, str], str] = ((-2, ""), "")

    @property
    def status(self) -> str:
        """``waiting`` (before the first deal), ``playing`` or ``finished``."""
        if self.match is None:
            return "waiting"
        return "finished" if self.match.is_over() or self.forfeit is not None else "playing"

    @property
    def winner(self) -> int | None:
        """The side that won the match (by play or by a forfeit), ``None`` until then."""
        if self.forfeit is not None:
            return self.forfeit[1]
        return None if self.match is None else self.match.winner

    def between_rounds(self) -> bool:
        """Whether the next deal is due (before the first round or after one)."""
        return self.match is None or self.match.phase is Phase.ROUND_OVER

    def next_round(self) -> int:
        """The index of the round to deal next."""
        return 0 if self.match is None else self.match.round_index + 1

    def cutter(self, round_index: int) -> int:
        """The seat that cuts for a round: the one before its dealer."""
        return (self.rounds[round_index].dealer - 1) % self.rules.players

    def apply(self, event: Event) -> dict[str, Any]:
        """Apply ``event`` and return it as the protocol shows it; an illegal play raises
        :class:`IllegalPlayError` and changes nothing."""
        if event.seq != self.seq + 1:
            raise ValueError(f"event {event.seq} does not follow {self.seq}")
        shown: dict[str, Any] = {"kind": event.kind}
        data = event.data or {}
        if event.kind == "play":
            match = self.match
            if match is None or match.turn != event.seat:
                raise IllegalPlayError(f"no play is due from seat {event.seat}")
            match.play(Card(event.card or ""))
            play = match.plays[-1][-1]
            marks = [{"kind": m.kind, "card": str(m.card), "points": m.points} for m in play.marks]
            shown.update(seat=play.seat, card=str(play.card), taken=play.taken, marks=marks)
            if data.get("auto"):
                shown["auto"] = data["auto"]
            self.turn_seq = event.seq
        elif event.kind == "round-start":
            index = data["round"]
            fair = self.rounds[index]
            fair.cut = data["cut"]
            seed = deal_seed(fair.secret, fair.cut)
            if self.match is None:
                self.match = Match(self.rules, seed=self.table_id,
                                   deal=Deal.shuffle(self.rules, fair.dealer, seed))
            else:
                self.match.next_round(deal_seed=seed)
            self.readies.clear()
            self.cut = ""
            self.turn_seq = event.seq
            shown["round"] = index
        elif event.kind == "ready":
            assert event.seat is not None
            self.readies.add(event.seat)
            if data.get("cut") is not None:
                self.cut = data["cut"]
            shown["seat"] = event.seat
        elif event.kind == "resign":
            assert self.match is not None and event.seat is not None
            self.match.resign(event.seat)
            shown["seat"] = event.seat
            self.turn_seq = event.seq
        elif event.kind in ("round-end", "match-end", "seat", "rematch"):
            if event.kind == "match-end" and "forfeit" in data:
                self.forfeit = (data["forfeit"], data["winner"])
            if event.seat is not None:
                shown["seat"] = event.seat
            shown.update(data)
        else:
            raise ValueError(f"unknown event kind {event.kind!r}")
        self.seq = event.seq
        self.history.observe(shown, self.match)
        return shown

    def view_text(self, seat: int | None) -> str:
        """What ``seat`` may see now (``None``: a spectator, who sees no hand and no face-down
        card) as the JSON text of ``view_to_json``, or ``null`` before the first deal. The parts
        every seat sees alike (the rules, the round's plays, the finished rounds' results) are
        turned into JSON once, not once per connection and play."""
        match = self.match
        if match is None:
            return "null"
        view = match.spectator_view() if seat is None else match.view(seat)
        if self._results_text[0] != len(view.round_results):
            self._results_text = (len(view.round_results),
                                  Fragment(dumps([result_to_json(r) for r in view.round_results])))
        return dumps(view_to_json(view, {"rules": self._rules_text, "plays": self._round_plays_text(view),
                                            "round_results": self._results_text[1]}))

    def _round_plays_text(self, view: View | SpectatorView) -> Fragment:
        """The JSON text of ``view``'s plays (the round's, public), each play encoded once."""
        key = (view.round_index, len(view.plays))
        if self._plays_text[0] != key:
            if self._plays_text[0][0] != view.round_index or len(self._play_texts) > len(view.plays):
                self._play_texts = []
            self._play_texts.extend(dumps(play_to_json(p)) for p in view.plays[len(self._play_texts):])
            self._plays_text = (key, Fragment("[" + ",".join(self._play_texts) + "]"))
        return self._plays_text[1]

    def fairness_text(self) -> str:
        """:meth:`fairness` as JSON text (it changes only when a round starts or ends)."""
        match = self.match
        key = (-1, "") if match is None else (match.round_index, match.phase.value)
        if self._fairness_text[0] != key:
            self._fairness_text = (key, dumps(self.fairness()))
        return self._fairness_text[1]

    def fairness(self) -> dict[str, Any]:
        """The fairness record so far: the commitment to the round at hand (the one being
        played, or the next one), who cuts it, and the secrets of the rounds that have ended."""
        match = self.match
        if match is None:
            current, ended = 0, 0
        elif match.phase is Phase.PLAYING:
            current, ended = match.round_index, match.round_index
        elif match.phase is Phase.ROUND_OVER:
            current, ended = match.round_index + 1, match.round_index + 1
        else:
            current, ended = match.round_index, match.round_index + 1
        revealed = []
        for index in range(ended):
            fair = self.rounds[index]
            cut = fair.cut or ""
            revealed.append({"round": index, "secret": fair.secret, "commitment": fair.commitment,
                             "cut": cut, "deal_seed": deal_seed(fair.secret, cut), "dealer": fair.dealer})
        return {"round": current, "commitment": self.rounds[current].commitment,
                "cutter": self.cutter(current), "revealed": revealed}


class StateText:
    """The ``state`` messages of one moment of a table, each shared part turned into JSON once
    and spliced in (as an ``orjson.Fragment``) byte for byte."""

    def __init__(self, table: dict[str, Any], state: GameState,
                 turn_deadline: dict[str, float] | None) -> None:
        self._table = Fragment(dumps(table))
        self._fairness = Fragment(state.fairness_text())
        self._history = Fragment(state.history.to_text())
        self._deadline = turn_deadline
        self._state = state
        self._views: dict[int | None, Fragment] = {}

    def message(self, seq: int, event: dict[str, Any] | Fragment | None, seat: int | None) -> str:
        """The ``state`` message for a connection of ``seat`` (``None``: a spectator), after
        ``event`` (as :meth:`GameState.apply` shows it)."""
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = Fragment(self._state.view_text(seat))
        return State(seq, self._table, view, event, self._fairness, self._deadline, self._history).encode()


class Connection:
    """One WebSocket: who it speaks for and the messages queued for it."""

    def __init__(self, websocket: WebSocket | None, settings: ServerSettings,
                 user: str | None = None) -> None:
        self.websocket = websocket
        """``None`` for a connection relayed from another process (``server/relay.py``)."""
        self.user = user
        """The signed-in account behind the connection (its session cookie), if any."""
        self.seat: int | None = None
        self.joined = False
        self.bucket = TokenBucket(settings.limits.rate, settings.limits.burst)
        self.max_queued = settings.limits.send_queue
        self.dropped: str | None = None
        """Why the server dropped it (it stopped reading, or kept flooding), if it did."""
        self.close_code = 1008
        """The WebSocket close code it is dropped with (1012: its table moved, reconnect)."""
        self.on_drop: Callable[[], object] | None = None
        self.throttled = 0
        """Messages refused in a row for want of allowance."""
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()

    def send(self, message: ServerMessage) -> None:
        """Queue a message (a client too slow to take them is dropped)."""
        self.send_text(message.encode())

    def send_text(self, text: str) -> None:
        """Queue a message already in JSON; a client that lets :attr:`max_queued` pile up is
        dropped."""
        if self.dropped:
            return
        if self._queue.qsize() >= self.max_queued:
            self.drop("too many unread messages")
            return
        self._queue.put_nowait(text)

    def drop(self, reason: str, code: int = 1008) -> None:
        """Close it (``code``) for ``reason``; its seat counts as away at once (:attr:`on_drop`)."""
        if self.dropped:
            return
        self.dropped, self.close_code = reason, code
        if self.on_drop is not None:
            self.on_drop()

    def close(self) -> None:
        """Stop sending after what is queued."""
        self._queue.put_nowait(None)

    async def send_forever(self) -> None:
        """Send queued messages in order until closed or the peer goes."""
        assert self.websocket is not None
        while (text := await self._queue.get()) is not None:
            await self.websocket.send_text(text)

    async def finish(self, sender: asyncio.Task[None]) -> None:
        """End its socket once its handler is done: at once with the reason when it was dropped,
        else after ``sender`` (:meth:`send_forever`) has sent what is queued."""
        assert self.websocket is not None
        if self.dropped:
            sender.cancel()
            with suppress(Exception):
                await asyncio.wait_for(self.websocket.close(self.close_code, self.dropped), 1)
        else:
            self.close()
            with suppress(Exception):
                await asyncio.wait_for(sender, 5)
            with suppress(Exception):
                await self.websocket.close()


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

Finished = Callable[["GameTable"], Coroutine[Any, Any, None]]
"""Told of a match played or abandoned to its end (the players' layer rates it)."""


@dataclass(slots=True)
class SeatState:
    """A seat: who sits there, and (for people) their connection's state."""

    kind: str
    level: str | None
    name: str | None
    token_hash: str | None
    user: str | None = None
    """The account holding the seat (``server/accounts.py``), if any."""
    connections: int = 0
    last_seen: float = field(default_factory=time.monotonic)

    @property
    def taken(self) -> bool:
        """A bot's seat is always taken; a person's once someone holds its token."""
        return self.kind == "bot" or self.token_hash is not None


class GameTable:
    """A live table."""

    def __init__(self, table_id: str, row: dict[str, Any], seats: list[SeatState],
                 rounds: list[RoundSecret], store: db.Store, settings: ServerSettings,
                 search: SearchPool, *, fence: Fence = UNFENCED, finished: Finished | None = None) -> None:
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
        """A rated match (``server/ratings.py``): abandoning it past the grace period loses it."""
        self.finished = finished
        """Told once a match played or abandoned here is over (the ratings)."""
        self.seats = seats
        self.rounds = rounds
        self.events: list[Event] = []
        self.state = GameState(table_id, self.rules, rounds)
        self.store = store
        self.settings = settings
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.turn_since = time.monotonic()
        self.pending_since = time.monotonic()
        self.touched = time.monotonic()
        """When the table last changed (finished tables nobody watches are let go after a while)."""
        self.search = search
        self._bot_seed = secrets.randbits(32)
        self._hint_allowance: dict[int, TokenBucket] = {}
        self._hints: dict[tuple[int, int], asyncio.Future[HintValues]] = {}
        self._spectator_backlogs: dict[tuple[int, int], list[str]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.fence = fence
        """Guards each commit (in a cluster, the lease's fencing number)."""
        self.stopped = False
        """Stopped for good (let go): no automatic step runs again."""

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def restore(cls, stored: db.StoredTable, store: db.Store, settings: ServerSettings,
                search: SearchPool, *, fence: Fence = UNFENCED,
                finished: Finished | None = None) -> GameTable:
        """Rebuild a table from the database by replaying its log through the engine."""
        seats = [SeatState(s["kind"], s["level"], s["name"], s["token_hash"], s.get("user_id"))
                 for s in stored.seats]
        rounds = [RoundSecret(r["secret"], r["commitment"], r["dealer"]) for r in stored.rounds]
        table = cls(stored.row["id"], stored.row, seats, rounds, store, settings, search,
                    fence=fence, finished=finished)
        for row in stored.events:
            event = Event.from_row(row)
            table.state.apply(event)
            table.events.append(event)
        table._resume_clock()
        return table

    @classmethod
    def new(cls, table_id: str, rules: Rules, seats: list[SeatState], *, casual: bool, public: bool,
            clock: int | None, store: db.Store, settings: ServerSettings, search: SearchPool,
            rematch_of: str | None = None, rated: bool = False, fence: Fence = UNFENCED,
            finished: Finished | None = None) -> tuple[GameTable, db.Batch]:
        """A new table and the batch that stores it (sealed by its ``fence``)."""
        first_dealer = secrets.randbelow(rules.players)
        row = {"id": table_id, "created": time.time(), "rules": dumps(rules.options()),
               "casual": casual, "public": public, "clock": clock, "first_dealer": first_dealer,
               "finished": False, "rematch_of": rematch_of, "rematch": None, "rated": rated}
        fair = RoundSecret.fresh(first_dealer)
        table = cls(table_id, row, seats, [fair], store, settings, search, fence=fence, finished=finished)
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
            self.turn_since = self.pending_since = began

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
                 "standin": self._away(index, now)}
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
        """When the play due must be made, as UNIX times ``{"at": …, "now": …}`` (``now``: the
        server's clock, so a client can count ``at - now`` seconds from receipt whatever its own
        clock says); ``None`` when the table has no clock or no play is due."""
        match = self.state.match
        if self.clock is None or self.state.status != "playing" or self.state.between_rounds():
            return None
        if match is None or match.turn is None:
            return None
        now = time.time()
        left = max(0.0, self.turn_since + self.clock - time.monotonic())
        return {"at": round(now + left, 3), "now": round(now, 3)}

    def _backlog(self, seat: int | None, since: int | None) -> list[str]:
        """What a client that has seen state ``since`` is sent on hello: each state it missed,
        as ``seat`` saw it then (spectators' backlogs computed once per moment); the latest
        state alone when it has seen none or missed more than ``limits.max_backlog``."""
        latest = self.state.seq
        if since == latest:
            return []
        if since is None or since > latest or latest - since > self.settings.limits.max_backlog:
            moment = StateText(self.table_json(), self.state, self.turn_deadline())
            return [moment.message(latest, None, seat)]
        if seat is not None:
            return self._missed(seat, since)
        key = (since, latest)
        backlog = self._spectator_backlogs.get(key)
        if backlog is None:
            if len(self._spectator_backlogs) > 16 or any(k[1] != latest for k in self._spectator_backlogs):
                self._spectator_backlogs.clear()
            backlog = self._spectator_backlogs[key] = self._missed(None, since)
        return backlog

    def _missed(self, seat: int | None, since: int) -> list[str]:
        """The state messages after ``since``, each as ``seat`` saw it then."""
        replay = GameState(self.id, self.rules, self.rounds)
        messages = []
        for event in self.events:
            shown = replay.apply(event)
            if event.seq > since:
                deadline = self.turn_deadline() if event.seq == self.state.seq else None
                moment = StateText(self.table_json(replay), replay, deadline)
                messages.append(moment.message(event.seq, shown, seat))
        return messages

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
            self.pending_since = time.monotonic()
            try:
                await self._emit("seat", seat, {"state": "joined"}, batch)
            except ProtocolError:
                taker.token_hash = taker.name = None
                raise
            return seat, token

    # -- requests --------------------------------------------------------------------------------

    async def handle(self, connection: Connection, message: Hello | Play | Ready | Hint | Ping) -> None:
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
        seat = connection.seat
        if seat is None:
            raise ProtocolError("not-seated", "spectators cannot play; join a seat first")
        await self.lock.acquire()
        # once begun, a move runs to its end (stored, then told to everyone) even when the
        # connection that asked is dropped meanwhile (its handler cancelled): stopped half-way,
        # it would be applied and stored but never told, and the table would wait forever
        move = asyncio.ensure_future(self._move(seat, message))
        move.add_done_callback(lambda done: done.cancelled() or done.exception())
        await asyncio.shield(move)

    async def _move(self, seat: int, message: Play | Ready) -> None:
        """Play or get ready for ``seat`` (the caller acquired :attr:`lock`; released here)."""
        try:
            if isinstance(message, Play):
                await self._play_request(seat, message)
            else:
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
        if match is None or match.turn is None:
            raise ProtocolError("not-playing", "no play is due")
        if match.turn != seat:
            raise ProtocolError("not-your-turn", f"it is seat {match.turn}'s turn, not seat {seat}'s")
        key = (seat, self.state.seq)
        pending = self._hints.get(key)
        if pending is None:
            limits = self.settings.limits
            allowance = self._hint_allowance.setdefault(
                seat, TokenBucket(limits.hints_per_minute / 60, max(1.0, limits.hints_per_minute / 6)))
            if not allowance.take():
                raise ProtocolError("throttled", f"at most {limits.hints_per_minute:g} hints a minute")
            self._hints = {k: f for k, f in self._hints.items() if k[1] == self.state.seq}
            pending = self._hints[key] = asyncio.ensure_future(self._search_hint(match.view(seat)))
            pending.add_done_callback(lambda done: done.exception() and self._hints.pop(key, None))
        return await asyncio.shield(pending)

    async def _search_hint(self, view: View) -> HintValues:
        try:
            ranked = await self.search.hint(view, seed=self.state.seq)
        except SearchBusy:
            raise ProtocolError("busy", "the server is busy thinking; ask for a hint again soon") from None
        return HintValues(tuple((str(card), round(value, 3)) for card, value in ranked))

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
        if message.protocol != PROTOCOL:
            raise ProtocolError("unsupported-protocol",
                                f"this server speaks protocol {PROTOCOL}, not {message.protocol}")
        if connection.joined:
            raise ProtocolError("bad-message", "hello was already said on this connection")
        async with self.lock:
            seat = None
            if message.token is not None:
                seat = self.seat_of(message.token)
                if seat is None:
                    raise ProtocolError("bad-token", "that token holds no seat at this table")
            elif connection.user is not None:
                seat = self.seat_of_user(connection.user)
            if seat is not None:
                same = sum(1 for c in self.connections if c.seat == seat)
                if same >= self.settings.limits.connections_per_seat:
                    raise ProtocolError("too-many-connections", f"a seat may have at most "
                                        f"{self.settings.limits.connections_per_seat} connections at once")
            backlog = self._backlog(seat, message.since)
            connection.seat = seat
            connection.joined = True
            connection.send(Welcome(self.table_json(), seat))
            for text in backlog:
                connection.send_text(text)
            self.connections.add(connection)
            if seat is not None:
                state = self.seats[seat]
                state.connections += 1
                if state.connections == 1:
                    self._presence()

    async def leave(self, connection: Connection) -> None:
        """Forget a closed connection; a seat left empty starts its grace period."""
        if connection not in self.connections:
            return
        async with self.lock:
            self.connections.discard(connection)
            seat = connection.seat
            if seat is not None:
                state = self.seats[seat]
                state.connections -= 1
                if state.connections == 0:
                    state.last_seen = time.monotonic()
                    self._presence()

    def _presence(self) -> None:
        """Tell everyone who is connected now (not stored: comings and goings are not events)."""
        text = Presence(self.table_json()).encode()
        for connection in self.connections:
            connection.send_text(text)
        self._schedule()

    async def _play_request(self, seat: int, message: Play) -> None:
        state = self.state
        match = state.match
        if match is None or match.turn is None:
            raise ProtocolError("not-playing", "no play is due: " + (
                "the first round has not been dealt" if match is None else
                "the match is over" if match.is_over() else "the round is over"))
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
        data = {"cut": message.cut} if seat == cutter and message.cut is not None else None
        await self._emit("ready", seat, data)

    # -- changing the match --------------------------------------------------------------------

    async def _play(self, seat: int, card: Card, auto: str | None = None) -> None:
        state = self.state
        event = Event(state.seq + 1, "play", seat, str(card), {"auto": auto} if auto else None)
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
            applied.append(self._derived("round-end", {"round": match.round_index}))
            if match.is_over():
                applied.append(self._derived("match-end", {"winner": match.winner}))
                batch.updates.append(db.set_table(self.id, finished=True))
            else:
                fair = RoundSecret.fresh((match.dealer + 1) % self.rules.players)
                self.rounds.append(fair)
                batch.insert(db.rounds, table_id=self.id, round=len(self.rounds) - 1, secret=fair.secret,
                             commitment=fair.commitment, dealer=fair.dealer)
        try:
            await self._commit([e for e, _ in applied], batch)
        except Exception:
            del self.rounds[rounds_before:]
            raise
        now = time.monotonic()
        self.turn_since = now
        if match.is_round_over():
            self.pending_since = now
        self._broadcast(applied)
        self._schedule()
        if match.is_over():
            self._finished()

    def _finished(self) -> None:
        """Tell :attr:`finished` off the caller's path."""
        if self.finished is not None:
            task = asyncio.create_task(self.finished(self))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

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
        self._finished()

    def _derived(self, kind: str, data: dict[str, Any]) -> tuple[Event, dict[str, Any]]:
        event = Event(self.state.seq + 1, kind, data=data)
        return event, self.state.apply(event)

    async def _deal(self) -> None:
        state = self.state
        self.turn_since = time.monotonic()
        await self._emit("round-start", None, {"round": state.next_round(), "cut": state.cut})

    async def _emit(self, kind: str, seat: int | None, data: dict[str, Any] | None,
                    batch: db.Batch | None = None) -> None:
        """Apply, store and announce one event (not a play: see :meth:`_play`)."""
        event = Event(self.state.seq + 1, kind, seat, data=data)
        shown = self.state.apply(event)
        await self._commit([event], batch)
        self._broadcast([(event, shown)])
        self._schedule()

    async def _commit(self, new: list[Event], batch: db.Batch | None = None) -> None:
        """Store events already applied to ``self.state``; on failure rebuild the state from
        the stored log and raise ``server-error``."""
        batch = batch or db.Batch()
        for event in new:
            batch.insert(db.events, **event.row(self.id))
        self.fence.seal(self, batch)
        try:
            await self.store.write(batch)
        except Exception as error:
            if isinstance(error, db.FenceLost):
                log.warning("table %s: the lease's fence refused a commit; another process owns it", self.id)
                self.fence.lost(self)
            else:
                log.exception("could not store events at table %s", self.id)
            self.state = GameState(self.id, self.rules, self.rounds)
            for event in self.events:
                self.state.apply(event)
            raise ProtocolError("server-error", "the server could not store that; nothing changed") from None
        self.events.extend(new)
        self.touched = time.monotonic()

    def unjoined(self, now: float, after: float) -> bool:
        """Whether the table still waits for players ``after`` seconds after it was opened
        (UNIX time ``now``), and nobody is connected to it."""
        return (self.state.status == "waiting" and now - self.created > after and not self.connections
                and not all(seat.taken for seat in self.seats))

    def idle(self, now: float, after: float) -> bool:
        """Whether the match is over, nobody is connected and nothing happened for ``after`` s."""
        return self.state.status == "finished" and not self.connections and now - self.touched > after

    def _broadcast(self, applied: list[tuple[Event, dict[str, Any]]]) -> None:
        moment = StateText(self.table_json(), self.state, self.turn_deadline())
        for event, shown in applied:
            encoded = Fragment(dumps(shown))
            for connection in self.connections:
                connection.send_text(moment.message(event.seq, encoded, connection.seat))

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

    def _away(self, seat: int, now: float) -> bool:
        state = self.seats[seat]
        return (state.kind == "human" and state.taken and state.connections == 0
                and now >= state.last_seen + self.settings.grace)

    def _due(self, now: float) -> float | None:
        """When the next automatic step (a deal, a bot's play) is due, or ``None``."""
        state = self.state
        if state.status == "finished":
            return None
        settings = self.settings
        if state.between_rounds():
            if not all(seat.taken for seat in self.seats):
                return None
            waiting = [i for i, seat in enumerate(self.seats)
                       if seat.kind == "human" and i not in state.readies and not self._away(i, now)]
            if not waiting:
                return now
            times = [self.pending_since + settings.ready_timeout]
            times.extend(self.seats[i].last_seen + settings.grace for i in waiting
                         if self.seats[i].connections == 0)
            return min(times)
        assert state.match is not None and state.match.turn is not None
        turn = state.match.turn
        seat = self.seats[turn]
        if seat.kind == "bot":
            return self.turn_since + settings.bot_delay
        times = []
        if seat.connections == 0:
            times.append(max(seat.last_seen + settings.grace, self.turn_since + settings.bot_delay))
        if self.clock is not None:
            times.append(self.turn_since + self.clock)
        return min(times) if times else None

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.stopped:
            return
        now = time.monotonic()
        due = self._due(now)
        if due is not None:
            self._timer = asyncio.get_running_loop().call_later(max(0.0, due - now), self._fire)

    def _fire(self) -> None:
        self._timer = None
        task = asyncio.create_task(self._tick())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tick(self) -> None:
        try:
            async with self.lock:
                due = self._due(time.monotonic())
                if due is None or due > time.monotonic() + 0.002:
                    self._schedule()
                    return
                if self.state.between_rounds():
                    await self._deal()
                    return
                match = self.state.match
                assert match is not None and match.turn is not None
                seat = match.turn
                if self.rated and self._away(seat, time.monotonic()):
                    await self._forfeit(seat)
                    return
                level = self.seats[seat].level if self.seats[seat].kind == "bot" else STANDIN_LEVEL
                seed = (self._bot_seed + self.state.seq) % 2**32
                card = await self.search.choose(level or STANDIN_LEVEL, seed, match.view(seat))
                clock_ran_out = self.clock is not None and due >= self.turn_since + self.clock
                await self._play(seat, card, auto_reason(self.seats[seat].kind, clock_ran_out))
        except Exception:
            if not self.stopped:
                log.exception("table %s: an automatic step failed; retrying in a second", self.id)
                self._timer = asyncio.get_running_loop().call_later(1.0, self._fire)

    def start(self) -> None:
        """Begin the table's automatic steps (after creation or restoration)."""
        self._schedule()

    def stop(self) -> None:
        """Cancel the table's timers for good."""
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._tasks):
            task.cancel()


"""A table's audience: its connections (each a seat's, or a spectator's) and what each is
shown: every change as its own seat sees it (:class:`StateText`: the parts every seat sees alike
encoded once and spliced in), the presence of the seats, and on hello the states it missed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import suppress
from typing import Any, Protocol

from fastapi import WebSocket
from orjson import Fragment

from kseri.server.delta import DeltaText, MomentParts, Parts, SharedParts
from kseri.server.eventlog import Event, EventLog, GameState
from kseri.server.limits import TokenBucket
from kseri.server.protocol import LEAN, PROTOCOL, Presence, ServerMessage, State, dumps
from kseri.server.settings import ServerSettings

RESTART = 1012
"""The WebSocket close code that asks a client to reconnect (``Service Restart``)."""
DROPPED = 1008
"""The WebSocket close code of a connection the server drops for good (``Policy Violation``:
it stopped reading, it kept flooding, its table was removed)."""


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
        """The seat whose view it is sent (``None``: a spectator's, or nobody's hand shown)."""
        self.held: tuple[int, ...] = ()
        """Pass and play: every seat this connection holds (it shows one at a time: :attr:`seat`)."""
        self.protocol = PROTOCOL
        self.sent: Parts | None = None
        """Protocol v2: the moment it was last sent, as its seat saw it (the deltas' base)."""
        self.sent_seq = 0
        """The ``seq`` of :attr:`sent`."""
        self.joined = False
        self.bucket = TokenBucket(settings.limits.rate, settings.limits.burst)
        self.max_queued = settings.limits.send_queue
        self.dropped: str | None = None
        """Why the server dropped it (it stopped reading, or kept flooding), if it did."""
        self.close_code = DROPPED
        """The WebSocket close code it is dropped with (:data:`RESTART`: its table moved, reconnect)."""
        self.on_drop: Callable[[], object] | None = None
        self.throttled = 0
        """Messages refused in a row for want of allowance."""
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()

    @property
    def present(self) -> tuple[int, ...]:
        """The seats whose player this connection counts as connected."""
        return self.held or (() if self.seat is None else (self.seat,))

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

    def drop(self, reason: str, code: int = DROPPED) -> None:
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


class Shown(Protocol):
    """What the audience is shown of its table besides the log."""

    def table_json(self, state: GameState | None = None) -> dict[str, Any]:
        """The table as everyone may see it (``state``: as of an earlier point of the log)."""

    def turn_deadline(self) -> dict[str, float] | None:
        """When the play due must be made, if the table has a clock."""


class Audience:
    """A table's connections, and what each is sent."""

    def __init__(self, table: Shown, log: EventLog, max_backlog: int) -> None:
        self.connections: set[Connection] = set()
        self._table = table
        self._log = log
        self._max_backlog = max_backlog
        self._spectator_backlogs: dict[tuple[int, int], list[str]] = {}
        self._shared = SharedParts()

    def tell(self, text: str) -> None:
        """Send every connection the same message."""
        for connection in self.connections:
            connection.send_text(text)

    def presence(self, table: dict[str, Any]) -> None:
        """Tell every connection who is connected now (``table``); v2 connections' deltas then
        count from this table."""
        self.tell(Presence(table).encode())
        replaced: dict[int, tuple[Parts, Parts]] = {}
        for connection in self.connections:
            sent = connection.sent
            if sent is not None:
                pair = replaced.get(id(sent))
                if pair is None:
                    pair = replaced[id(sent)] = (sent, dict(sent, table=table))
                connection.sent = pair[1]

    def broadcast(self, applied: list[tuple[Event, dict[str, Any]]]) -> None:
        """Tell every connection of events just committed, each as its seat sees them: a
        ``state`` (protocol v1) or a ``delta`` from what it was sent before (v2)."""
        table, state, deadline = self._table.table_json(), self._log.state, self._table.turn_deadline()
        moment = StateText(table, state, deadline)
        lean = None
        for index, (event, shown) in enumerate(applied):
            encoded = Fragment(dumps(shown))
            for connection in self.connections:
                sent = connection.sent
                if sent is None:
                    connection.send_text(moment.message(event.seq, encoded, connection.seat))
                    continue
                if lean is None:
                    lean = DeltaText(MomentParts(table, state, deadline, self._shared))
                connection.send_text(lean.message(event.seq, encoded, connection.seat, sent,
                                                  connection.sent_seq, index == 0))
        if lean is not None:
            for connection in self.connections:
                if connection.sent is not None:
                    connection.sent, connection.sent_seq = lean.parts[connection.seat], state.seq

    def full(self, connection: Connection) -> str:
        """The latest ``state`` as ``connection``'s seat sees it, with no event (on hello, and
        for v2 on ``sync`` or ``show``); a v2 connection's deltas count from it."""
        table, state, deadline = self._table.table_json(), self._log.state, self._table.turn_deadline()
        if connection.protocol == LEAN:
            connection.sent = MomentParts(table, state, deadline, self._shared)[connection.seat]
            connection.sent_seq = state.seq
        return StateText(table, state, deadline).message(state.seq, None, connection.seat)

    def backlog(self, seat: int | None, since: int | None) -> list[str]:
        """What a client that has seen state ``since`` is sent on hello: each state it missed,
        as ``seat`` saw it then (spectators' backlogs computed once per moment); the latest
        state alone when it has seen none or missed more than ``limits.max_backlog``."""
        state = self._log.state
        latest = state.seq
        if since == latest:
            return []
        if since is None or since > latest or latest - since > self._max_backlog:
            moment = StateText(self._table.table_json(), state, self._table.turn_deadline())
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
        log = self._log
        replay = log.fresh_state()
        messages = []
        for event in log.events:
            shown = replay.apply(event)
            if event.seq > since:
                deadline = self._table.turn_deadline() if event.seq == log.state.seq else None
                moment = StateText(self._table.table_json(replay), replay, deadline)
                messages.append(moment.message(event.seq, shown, seat))
        return messages

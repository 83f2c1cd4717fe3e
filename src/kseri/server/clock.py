"""A table's clock: when the turn (or the wait between rounds) began, when the next automatic
step is due (a deal, a bot's play, an absent player's stand-in, a move the turn's clock ran out
on), and the table's one timer (``call_later``) that takes that step when it is due."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from kseri.server.eventlog import EventLog
from kseri.server.seats import SeatState
from kseri.server.settings import ServerSettings

log = logging.getLogger("kseri.server")

Step = Callable[[], Coroutine[Any, Any, None]]
"""The table's automatic step (it checks, under the table's lock, that it is still due)."""


class TurnClock:
    """A table's turn clock and its timer."""

    def __init__(self, table_id: str, settings: ServerSettings, seconds: int | None, log: EventLog,
                 seats: list[SeatState], step: Step) -> None:
        self.table_id = table_id
        self.settings = settings
        self.seconds = seconds
        """Seconds per play (``None``: no clock)."""
        self._log = log
        self._seats = seats
        self._step = step
        self.turn_since = time.monotonic()
        """When the turn began (``time.monotonic()``)."""
        self.pending_since = time.monotonic()
        """When the wait for the next deal began."""
        self.stopped = False
        """Stopped for good (its table let go): no automatic step runs again."""
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def away(self, seat: int, now: float) -> bool:
        """Whether a person's seat has had no connection for the grace period (a stand-in plays)."""
        state = self._seats[seat]
        return (state.kind == "human" and state.taken and state.connections == 0
                and now >= state.last_seen + self.settings.grace)

    def due(self, now: float) -> float | None:
        """When the next automatic step (a deal, a bot's play) is due, or ``None``."""
        state = self._log.state
        if state.status == "finished":
            return None
        settings, seats = self.settings, self._seats
        if state.between_rounds():
            if not all(seat.taken for seat in seats):
                return None
            waiting = [i for i, seat in enumerate(seats)
                       if seat.kind == "human" and i not in state.readies and not self.away(i, now)]
            if not waiting:
                return now
            times = [self.pending_since + settings.ready_timeout]
            times.extend(seats[i].last_seen + settings.grace for i in waiting if seats[i].connections == 0)
            return min(times)
        assert state.match is not None and state.match.turn is not None
        seat = seats[state.match.turn]
        if seat.kind == "bot":
            return self.turn_since + settings.bot_delay
        times = []
        if seat.connections == 0:
            times.append(max(seat.last_seen + settings.grace, self.turn_since + settings.bot_delay))
        if self.seconds is not None:
            times.append(self.turn_since + self.seconds)
        return min(times) if times else None

    def deadline(self) -> dict[str, float] | None:
        """When the play due must be made, as UNIX times ``{"at": …, "now": …}`` (``now``: the
        server's clock, so a client can count ``at - now`` seconds from receipt whatever its own
        clock says); ``None`` when the table has no clock or no play is due."""
        state = self._log.state
        match = state.match
        if self.seconds is None or state.status != "playing" or state.between_rounds():
            return None
        if match is None or match.turn is None:
            return None
        now = time.time()
        left = max(0.0, self.turn_since + self.seconds - time.monotonic())
        return {"at": round(now + left, 3), "now": round(now, 3)}

    def ran_out(self, due: float) -> bool:
        """Whether a step due at ``due`` is a move the turn's clock ran out on."""
        return self.seconds is not None and due >= self.turn_since + self.seconds

    def schedule(self) -> None:
        """Set the timer to the next step's time (or clear it when none is due)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.stopped:
            return
        now = time.monotonic()
        due = self.due(now)
        if due is not None:
            self._timer = asyncio.get_running_loop().call_later(max(0.0, due - now), self._fire)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the table (cancelled when it stops)."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _fire(self) -> None:
        self._timer = None
        self.spawn(self._take_step())

    async def _take_step(self) -> None:
        try:
            await self._step()
        except Exception:
            if not self.stopped:
                log.exception("table %s: an automatic step failed; retrying in a second", self.table_id)
                self._timer = asyncio.get_running_loop().call_later(1.0, self._fire)

    def stop(self) -> None:
        """Cancel the timer and the table's tasks for good."""
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._tasks):
            task.cancel()

"""Search off the event loop: hints, live win odds and the master's moves run in worker processes.

A search takes tens to hundreds of milliseconds of CPU. Run on the event loop (or in a thread,
which shares the interpreter's lock), it would delay every other table's messages; here it
runs in a separate process and the loop only awaits the answer. Workers receive views (what
one seat may know), never a match.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from kseri.agents import RUNGS, MasterAgent, hint, make_agent
from kseri.analysis.odds import Odds, odds, spectator_odds
from kseri.cards import Card
from kseri.engine import Match, SpectatorView, View

T = TypeVar("T")

CHEAP_LEVELS = frozenset({"random", "greedy", "learned", "expert", *RUNGS})
"""Bot levels whose moves take well under a millisecond (the ladder's rungs are dialled experts):
played on the loop itself."""


SERVER_CHECK_S = 1.0
"""Seconds between a worker process's checks that its server still runs."""


def end_with_server() -> None:
    """Make this worker process end once the server that started it has gone (a pool's
    initializer): a server killed with kill -9 leaves no worker behind, which its pool's queue
    would never tell to stop."""
    threading.Thread(target=_end_with, args=(os.getppid(),), name="end-with-server", daemon=True).start()


def _end_with(server: int) -> None:
    """End this process once its parent, the process ``server``, has gone."""
    while os.getppid() == server:
        time.sleep(SERVER_CHECK_S)
    os._exit(0)


class SearchBusy(Exception):
    """Too many searches are waiting; the request was not queued."""


def _hint(view: View, seed: int) -> list[tuple[Card, float]]:
    return hint(view, seed=seed)


def _odds(view: View | SpectatorView, worlds: int, seed: int) -> Odds:
    if isinstance(view, SpectatorView):
        return spectator_odds(view, worlds=worlds, seed=seed)
    return odds(view, worlds=worlds, seed=seed)


def _choose(level: str, seed: int, view: View, earlier: tuple[View, ...] = ()) -> Card:
    agent = make_agent(level, seed=seed)
    if isinstance(agent, MasterAgent):
        for seen in earlier:
            agent.recall(seen)
    return agent.choose(view)


def earlier_views(match: Match, seat: int) -> tuple[View, ...]:
    """The last view ``seat`` was asked to play in each of the match's finished rounds: what a
    bot that sat there from the start has seen of the other players
    (:meth:`~kseri.agents.master.MasterAgent.recall`), rebuilt from the record so that a bot made
    for one play reads them as one kept over the match does."""
    views = []
    for deal, plays in zip(match.deals[: match.round_index], match.plays, strict=False):
        last = max((index for index, play in enumerate(plays) if play.seat == seat), default=None)
        if last is None:
            continue
        again = Match(match.rules, deal=deal)
        for play in plays[:last]:
            again.play(play.card)
        views.append(again.view(seat))
    return tuple(views)


class SearchPool:
    """A pool of worker processes for searches, started on first use."""

    def __init__(self, workers: int | None = None, queue: int = 8) -> None:
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.queue = queue
        self._executor: ProcessPoolExecutor | None = None
        self._waiting = 0

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            spawn = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(self.workers, mp_context=spawn, initializer=end_with_server)
        return self._executor

    async def hint(self, view: View, seed: int) -> list[tuple[Card, float]]:
        """Every legal play of ``view`` with its value, best first; :class:`SearchBusy` when
        more than ``queue`` searches already wait."""
        return await self._queued(_hint, view, seed)

    async def odds(self, view: View | SpectatorView, worlds: int, seed: int) -> Odds:
        """The win odds of a seat's view (``analysis.odds.odds``) or of a spectator's
        (``spectator_odds``: the seat to play's side); :class:`SearchBusy` as for :meth:`hint`."""
        return await self._queued(_odds, view, worlds, seed)

    async def _queued(self, work: Callable[..., T], *args: Any) -> T:
        if self._waiting >= self.queue:
            raise SearchBusy
        self._waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool(), work, *args)
        finally:
            self._waiting -= 1

    async def choose(self, level: str, seed: int, view: View, earlier: tuple[View, ...] = ()) -> Card:
        """A bot's play: cheap levels at once, searching ones in a worker, which first recall the
        match's ``earlier`` rounds (:func:`earlier_views`)."""
        if level in CHEAP_LEVELS:
            return _choose(level, seed, view)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool(), _choose, level, seed, view, earlier)

    def close(self) -> None:
        """Stop the workers."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

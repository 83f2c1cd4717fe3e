"""A table's hints: the master's value of each legal play, searched in a worker process
(``server/workers.py``), asked at most ``limits.hints_per_minute`` times a minute per seat and
searched once per seat and moment however often it is asked."""

from __future__ import annotations

import asyncio

from kseri.engine import View
from kseri.server.limits import TokenBucket
from kseri.server.protocol import HintValues, ProtocolError
from kseri.server.settings import ServerSettings
from kseri.server.workers import SearchBusy, SearchPool


class Hints:
    """The hints of one table."""

    def __init__(self, settings: ServerSettings, search: SearchPool) -> None:
        self.settings = settings
        self.search = search
        self._allowance: dict[int, TokenBucket] = {}
        self._pending: dict[tuple[int, int], asyncio.Future[HintValues]] = {}

    async def ask(self, view: View, seq: int) -> HintValues:
        """The values of ``view``'s seat's plays at the table's state ``seq`` (raises
        :class:`ProtocolError` when the seat asks too often or the workers are busy)."""
        key = (view.seat, seq)
        pending = self._pending.get(key)
        if pending is None:
            limits = self.settings.limits
            allowance = self._allowance.setdefault(
                view.seat, TokenBucket(limits.hints_per_minute / 60, max(1.0, limits.hints_per_minute / 6)))
            if not allowance.take():
                raise ProtocolError("throttled", f"at most {limits.hints_per_minute:g} hints a minute")
            self._pending = {k: f for k, f in self._pending.items() if k[1] == seq}
            pending = self._pending[key] = asyncio.ensure_future(self._search(view, seq))
            pending.add_done_callback(lambda done: done.exception() and self._pending.pop(key, None))
        return await asyncio.shield(pending)

    async def _search(self, view: View, seq: int) -> HintValues:
        try:
            ranked = await self.search.hint(view, seed=seq)
        except SearchBusy:
            raise ProtocolError("busy", "the server is busy thinking; ask for a hint again soon") from None
        return HintValues(tuple((str(card), round(value, 3)) for card, value in ranked))

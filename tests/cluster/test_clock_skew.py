"""Turn deadlines on the database's clock: two server processes whose machine clocks really
disagree (libfaketime preloaded into each, two hours apart) hold a table in turn, and a
turn's clock runs out when it should by the database's clock, whichever holds it, after the
table moved from the process behind to the one ahead and back to one behind."""

from __future__ import annotations

import asyncio
import glob
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime

import httpx
import pytest
import websockets
from clusterkit import Cluster, two_player_table
from serverkit import Client, Json, Server

CLOCK = 30
"""Seconds per play: a move comes half-way through a turn, and a deadline counted on a
machine's clock would fire at the move (the turn's start read as two hours ago) or a whole
turn after it (read as in the future, so counted from the move)."""
SKEW = 3600
"""Each process's clock is this far from the true time: one behind, one ahead."""
LATE = 8.0
"""Seconds a clock play may come after its deadline on a loaded machine (a machine-clock
deadline comes ``CLOCK / 2`` late, or ``CLOCK / 2`` early)."""


def libfaketime() -> str:
    """The path of libfaketime's multi-threaded library (Debian's ``libfaketime``); the test
    fails, naming the package, where it is missing."""
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1"))
    if not found:
        pytest.fail("the clock-skew test needs libfaketime: apt-get install libfaketime")
    return found[0]


def skewed(seconds: int) -> dict[str, str]:
    """The environment of a process whose clocks (wall and monotonic) run ``seconds`` off."""
    return {"LD_PRELOAD": libfaketime(), "FAKETIME": f"{seconds:+d}", "FAKETIME_NO_CACHE": "1"}


def machine_offset(server: Server) -> float:
    """How far the process's wall clock is from this one's, by its HTTP ``Date`` header."""
    answer = httpx.get(f"{server.http}/api/rules", timeout=20)
    return parsedate_to_datetime(answer.headers["date"]).timestamp() - time.time()


class Holdout:
    """A seat's client that gets ready for each deal but never plays, so its turns run out;
    it reconnects (with ``since``) to :attr:`server` whenever its connection closes, and keeps
    each state it receives with the moment it did (``time.monotonic()``)."""

    def __init__(self, server: Server, table_id: str, token: str) -> None:
        self.server, self.table_id, self.token = server, table_id, token
        self.states: list[tuple[float, Json]] = []

    async def run(self) -> None:
        readied: set[int] = set()
        while True:
            since = self.states[-1][1]["seq"] if self.states else None
            try:
                client = await Client.connect(self.server, self.table_id, self.token, since=since)
                while True:
                    message = await client.receive(timeout=300)
                    if message["type"] != "state":
                        continue
                    self.states.append((time.monotonic(), message))
                    view, round_index = message["view"], message["fairness"]["round"]
                    dealing = view is None or view["phase"] == "round-over"
                    if dealing and message["table"]["status"] != "finished" and round_index not in readied:
                        readied.add(round_index)
                        await client.send({"type": "ready", "cut": "a cut"})
            except (websockets.ConnectionClosed, OSError, AssertionError, TimeoutError):
                await asyncio.sleep(0.2)

    async def state(self, wanted: Callable[[Json], bool], after: int = 0,
                    timeout: float = 120) -> tuple[float, Json]:
        """The first state after seq ``after`` that is ``wanted``, and when it came."""
        deadline = time.monotonic() + timeout
        while True:
            for at, state in self.states:
                if state["seq"] > after and wanted(state):
                    return at, state
            assert time.monotonic() < deadline, f"no such state after seq {after}: {self.states[-3:]}"
            await asyncio.sleep(0.05)


def timed_out(state: Json) -> bool:
    """The state telling of a play the server made because the turn's clock ran out."""
    event = state["event"]
    return event is not None and event["kind"] == "play" and event["auto"] == "clock"


def left(state: Json) -> float:
    """The seconds a state says are left to the turn (its deadline's ``at - now``)."""
    deadline = state["turn_deadline"]
    assert deadline is not None, state
    return float(deadline["at"] - deadline["now"])


async def expect_left(server: Server, table_id: str, began: float) -> None:
    """A spectator who connects to ``server`` (which takes the table over) is told the time
    left to a turn that began at ``began`` (this machine's monotonic clock)."""
    watcher = await Client.connect(server, table_id)
    state = await watcher.expect("state", timeout=60)
    await watcher.close()
    expected = CLOCK - (time.monotonic() - began)
    assert expected - 3 <= left(state) <= expected + 1, (left(state), expected)


@pytest.mark.slow
def test_turn_deadlines_hold_across_processes_whose_clocks_disagree(
        start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(0)
    behind = cluster.add(env=skewed(-SKEW))
    ahead = cluster.add(env=skewed(SKEW))
    assert abs(machine_offset(behind) + SKEW) < 60 and abs(machine_offset(ahead) - SKEW) < 60
    table_id, ana_token, ben_token = two_player_table(cluster, owner=0, clock=CLOCK)

    async def turns() -> None:
        seats = [Holdout(behind, table_id, token) for token in (ana_token, ben_token)]
        tasks = [asyncio.create_task(seat.run()) for seat in seats]
        watch = seats[0]
        try:
            # the first turn, on the process behind; it moves half-way to the one ahead (kill -9)
            began, first = await watch.state(lambda s: s["turn_deadline"] is not None)
            assert CLOCK - 3 <= left(first) <= CLOCK, first["turn_deadline"]
            await asyncio.sleep(max(0.0, began + CLOCK / 2 - time.monotonic()))
            for seat in seats:
                seat.server = ahead
            behind.kill()
            await expect_left(ahead, table_id, began)
            fired_at, fired = await watch.state(timed_out, after=first["seq"])
            assert CLOCK - 3 <= fired_at - began <= CLOCK + LATE, (fired_at - began, fired["event"])
            assert await asyncio.to_thread(cluster.owner, table_id) is ahead
            # the next turn, on the process ahead; a process behind starts, and takes the table
            # over half-way through the turn when the one ahead hands it over (SIGTERM)
            assert CLOCK - 3 <= left(fired) <= CLOCK, fired["turn_deadline"]
            began, second = fired_at, fired
            behind_again = await asyncio.to_thread(cluster.add, skewed(-SKEW))
            assert abs(machine_offset(behind_again) + SKEW) < 60
            move = began + CLOCK / 2
            assert time.monotonic() < move, "the third process took over half a turn to start"
            await asyncio.sleep(move - time.monotonic())
            for seat in seats:
                seat.server = behind_again
            await asyncio.to_thread(ahead.stop)
            await expect_left(behind_again, table_id, began)
            fired_at, fired = await watch.state(timed_out, after=second["seq"])
            assert CLOCK - 3 <= fired_at - began <= CLOCK + LATE, (fired_at - began, fired["event"])
            assert await asyncio.to_thread(cluster.owner, table_id) is behind_again
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(turns())

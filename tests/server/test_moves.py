"""A table at the edges of its moves and of its life. A move runs to its end once begun: when
the connection that sent it is dropped while the move is being stored (its handler cancelled: a
relaying process went away, a drain), the move is still told to everyone, so the other players
are not left waiting for a state that never comes (the stalled table of the rolling restart,
``tests/cluster/test_chaos.py``). And a connection that says hello to a copy of a table let go
a moment before (it moved to another process of a cluster) is told to reconnect, never seated
at a table that will not change again (the chaos test's stalled seat)."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import suppress
from typing import Any

from kseri.rules import Rules
from kseri.server import db
from kseri.server.audience import DROPPED, RESTART, Connection
from kseri.server.cluster import RECONNECT
from kseri.server.protocol import Hello, Play, Ready
from kseri.server.room import GameTable
from kseri.server.seats import SeatState, hash_token
from kseri.server.settings import ServerSettings
from kseri.server.workers import SearchPool


class Listener(Connection):
    """A connection with no socket that keeps every message it is sent."""

    def __init__(self, settings: ServerSettings) -> None:
        super().__init__(None, settings)
        self.messages: list[dict[str, Any]] = []

    def send_text(self, text: str) -> None:
        if not self.dropped:
            self.messages.append(json.loads(text))


async def until(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "it did not happen in time"
        await asyncio.sleep(0.01)


async def test_a_play_whose_connection_is_dropped_mid_commit_is_told_to_the_others(database_url: str) -> None:
    settings = ServerSettings(database_url, bot_delay=0)
    store = await db.Store.open(database_url)
    search = SearchPool(1)
    tokens = ["ana-token", "ben-token"]
    seats = [SeatState("human", None, name, hash_token(token)) for name, token in zip(["Ana", "Ben"], tokens,
                                                                                      strict=True)]
    table, batch = GameTable.new("moves", Rules.preset("greek"), seats, casual=True, public=False, clock=None,
                                 store=store, settings=settings, search=search)
    try:
        await store.write(batch)
        table.start()
        players = [Listener(settings), Listener(settings)]
        for player, token in zip(players, tokens, strict=True):
            await table.handle(player, Hello(type="hello", protocol=1, token=token, since=None))
        for player in players:
            await table.handle(player, Ready(type="ready", cut=None))
        await until(lambda: table.state.match is not None and table.state.match.turn is not None)
        match = table.state.match
        assert match is not None and match.turn is not None
        mover, other = players[match.turn], players[1 - match.turn]
        seq = table.state.seq
        card = str(match.view(match.turn).hand[0])

        hand = len(match.view(match.turn).hand)
        turn = match.turn
        sending = asyncio.create_task(table.handle(mover, Play(type="play", card=card, seq=seq)))
        for _ in range(100_000):  # until the play is applied in memory: its commit is under way
            await asyncio.sleep(0)
            if len(match.view(turn).hand) < hand:
                break
        mover.drop("its relaying process is gone")  # its connection is dropped now
        mover.drop("its relaying process is gone")
        sending.cancel()
        with suppress(asyncio.CancelledError):
            await sending

        def told() -> bool:
            return any(m["type"] == "state" and m["seq"] == seq + 1 for m in other.messages)

        await until(told)
        assert [e.seq for e in table.events][-1] == seq + 1 == table.state.seq
        stored = await store.load("moves")
        assert stored is not None and [row["seq"] for row in stored.events][-1] == seq + 1
    finally:
        table.stop("the test is over")
        search.close()
        await store.close()


async def test_a_hello_to_a_table_let_go_a_moment_before_is_told_to_reconnect(database_url: str) -> None:
    # as the cluster does when another process takes the table over
    ben = await hello_after_stop(database_url, "let-go", RECONNECT)
    assert (ben.dropped, ben.close_code) == (RECONNECT, RESTART)


async def test_a_hello_to_a_table_removed_a_moment_before_is_dropped_like_the_rest(database_url: str) -> None:
    ben = await hello_after_stop(database_url, "removed", "a moderator closed this table: spam", DROPPED)
    assert (ben.dropped, ben.close_code) == ("a moderator closed this table: spam", DROPPED)


async def hello_after_stop(database_url: str, table_id: str, reason: str, *code: int) -> Listener:
    """Ben's hello to a table stopped (``reason``, ``code``) after Ana was seated: his
    connection found this copy of the table just before, and says hello just after. Ana's
    connection is closed by the stop itself, with the same reason and code."""
    settings = ServerSettings(database_url, bot_delay=0)
    store = await db.Store.open(database_url)
    search = SearchPool(1)
    seats = [SeatState("human", None, name, hash_token(f"{name}-token")) for name in ("Ana", "Ben")]
    table, batch = GameTable.new(table_id, Rules.preset("greek"), seats, casual=True, public=False,
                                 clock=None, store=store, settings=settings, search=search)
    try:
        await store.write(batch)
        table.start()
        ana, ben = Listener(settings), Listener(settings)
        await table.handle(ana, Hello(type="hello", protocol=1, token="Ana-token", since=None))
        assert ana.messages[0]["type"] == "welcome" and ana in table.connections
        table.stop(reason, *code)
        await table.handle(ben, Hello(type="hello", protocol=1, token="Ben-token", since=None))
        assert ben.messages == [] and ben not in table.connections
        assert table.seats[1].connections == 0
        assert (ana.dropped, ana.close_code) == (ben.dropped, ben.close_code)  # stop closed Ana's alike
        return ben
    finally:
        search.close()
        await store.close()

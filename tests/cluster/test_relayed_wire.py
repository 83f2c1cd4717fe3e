"""Protocol v2 in a cluster: a v2 client whose table another process holds is relayed its
deltas unchanged, so the states it rebuilds equal the v1 states at every step and hold only
its seat's view; after the holder's kill -9 it reconnects to the process that took the table
over, gets the full state, and follows on by deltas."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

import websockets
from clusterkit import Cluster, two_player_table
from serverkit import Client, Json, Server, audit, bot, human
from test_lean_wire import LeanClient, compare, ends_match


def test_a_relayed_v2_client_rebuilds_every_v1_state(start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(3)
    holder, relaying, third = cluster.servers
    created = holder.create([human("Eleni"), bot("greedy")], rules="greek,target=61")
    table_id, token = created["table"]["id"], created["token"]

    async def follow() -> None:
        watcher = await Client.connect(third, table_id, since=0)  # relayed, v1, from the start
        lean_player = await LeanClient.connect(relaying, table_id, token)  # relayed, v2
        lean_watcher = await LeanClient.connect(third, table_id)  # relayed, v2
        player = await Client.connect(holder, table_id, token)  # on the holder, v1
        rng = random.Random(table_id)
        await asyncio.gather(player.play_until(ends_match, lambda view: rng.choice(view["hand"])),
                             watcher.play_until(ends_match), lean_player.follow_until(ends_match),
                             lean_watcher.follow_until(ends_match))
        assert compare(player, lean_player) > 40
        assert compare(watcher, lean_watcher) > 40
        assert audit(watcher.states, [lean_player, lean_watcher]) > 80  # type: ignore[list-item]
        assert sum(message["type"] == "delta" for _, message in lean_player.messages) > 40
        for client in (player, watcher, lean_player, lean_watcher):
            await client.close()

    asyncio.run(follow())
    assert cluster.owner(table_id) is holder


async def lean_reconnect(server: Server, table_id: str, token: str) -> tuple[LeanClient, Json]:
    """A v2 client connected to ``server`` and the full state it was sent first, trying again
    while the table's move is under way (a close with 1012 asks for that)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            client = await LeanClient.connect(server, table_id, token)
            return client, await client.receive()
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1012, closed
            assert time.monotonic() < deadline, "the table was never taken over"
            await asyncio.sleep(0.2)


def test_a_v2_client_follows_on_after_its_tables_holder_is_killed(
        start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(2)
    table_id, ana_token, ben_token = two_player_table(cluster, owner=0, rules="greek,target=61")
    holder, other = cluster.servers

    async def follow() -> None:
        ana = await Client.connect(other, table_id, ana_token)  # relayed, v1
        ben = await Client.connect(other, table_id, ben_token)
        lean = await LeanClient.connect(other, table_id, ana_token)  # relayed, v2
        await asyncio.gather(ana.play_until(lambda state: state["seq"] >= 12),
                             ben.play_until(lambda state: state["seq"] >= 12),
                             lean.follow_until(lambda message: message["seq"] >= 12))
        held_seq = lean.seq
        holder.kill()
        for client in (ana, ben, lean):
            await client.close()
        again, first = await lean_reconnect(other, table_id, ana_token)  # the other process takes it over
        assert first["type"] == "state" and first["event"] is None and first["seq"] >= held_seq
        if first["seq"] == held_seq:  # the same state, rebuilt by the new holder from its log
            assert again.parts is not None and lean.parts is not None
            assert {k: v for k, v in again.parts.items() if k != "table"} == \
                {k: v for k, v in lean.parts.items() if k != "table"}
        ana = await Client.connect(other, table_id, ana_token)
        ben = await Client.connect(other, table_id, ben_token)
        target = first["seq"] + 10
        await asyncio.gather(ana.play_until(lambda state: state["seq"] >= target),
                             ben.play_until(lambda state: state["seq"] >= target),
                             again.follow_until(lambda message: message["seq"] >= target))
        assert [message["type"] for _, message in again.messages[1:]] == ["delta"] * (len(again.messages) - 1)
        assert compare(ana, again) >= 10
        for client in (ana, ben, again):
            await client.close()

    asyncio.run(follow())
    assert cluster.owner(table_id) is cluster.servers[1]

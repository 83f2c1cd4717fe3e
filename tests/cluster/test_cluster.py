"""Many ``kseri serve`` processes as one game world (docs/server.md, Cluster): real processes
on loopback sharing a real PostgreSQL and a real Redis."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
from clusterkit import Cluster, Player, acknowledged, both, spectated, two_player_table, verified_record
from serverkit import Client, audit, bot, finished


def test_a_match_whose_players_are_on_different_processes(start_cluster: Callable[..., Cluster]) -> None:
    """Each player and a spectator on a process of their own; every message to every
    connection holds exactly its seat's view; the record verifies; the lobby is the same
    from every process; the plays told are the plays stored."""
    cluster = start_cluster(3)
    table_id, ana_token, ben_token = two_player_table(cluster, owner=0)
    for server in cluster.servers:  # the lobby: every process lists the table
        deadline = time.monotonic() + 10
        while table_id not in [t["id"] for t in httpx.get(server.http + "/api/lobby").json()["tables"]]:
            assert time.monotonic() < deadline, "the table never reached this process's lobby"
            time.sleep(0.2)

    async def play() -> tuple[list[Client], list[dict[str, object]]]:
        ana = await Client.connect(cluster.servers[1], table_id, ana_token, since=0)
        ben = await Client.connect(cluster.servers[2], table_id, ben_token, since=0)
        watcher = await Client.connect(cluster.servers[0], table_id, since=0)
        await asyncio.gather(ana.play_until(finished), ben.play_until(finished), watcher.play_until(finished))
        return [ana, ben, watcher], watcher.states

    clients, full = asyncio.run(play())
    assert audit(full, clients) >= 3 * len(full) - 3
    verified_record(cluster.servers[2], table_id)
    assert acknowledged(clients) == cluster.plays(table_id)
    assert cluster.owner(table_id) is cluster.servers[0]


def test_the_owner_killed_mid_game_another_process_takes_over(start_cluster: Callable[..., Cluster]) -> None:
    """kill -9 of the owning process: its clients (connected elsewhere) are told to reconnect,
    another process takes the table over by replaying its log, and the match ends with no
    play lost or applied twice."""
    cluster = start_cluster(3)
    table_id, ana_token, ben_token = two_player_table(cluster, owner=0)
    ana, ben = Player(cluster, table_id, ana_token, 1), Player(cluster, table_id, ben_token, 2)

    async def play() -> None:
        await both([ana, ben], lambda s: s["seq"] >= 40)
        cluster.servers[0].kill()
        await both([ana, ben], finished)

    asyncio.run(play())
    assert any(code == 1012 for code, _ in ana.closes + ben.closes), (ana.closes, ben.closes)
    assert ana.client is not None and ben.client is not None
    full = asyncio.run(spectated(cluster, table_id))
    assert audit(full, [ana.client, ben.client]) > 0
    assert acknowledged([ana.client, ben.client]) == cluster.plays(table_id)
    verified_record(cluster.servers[1], table_id)
    assert cluster.owner(table_id) in cluster.servers[1:]
    assert sum("took table" in s.output() for s in cluster.servers[1:]) >= 1


def test_a_stale_owner_is_fenced_off(start_cluster: Callable[..., Cluster]) -> None:
    """The owner stopped (SIGSTOP) past its lease while a play is on its way to it: another
    process takes the table over and the player makes another play there; resumed (SIGCONT),
    the stale owner finds its lease's fence moved on, lets the table go and writes nothing."""
    cluster = start_cluster(3)
    table_id, ana_token, ben_token = two_player_table(cluster, owner=0)
    players = [Player(cluster, table_id, ana_token, 1), Player(cluster, table_id, ben_token, 2)]
    stale = cluster.servers[0]
    assert stale.process is not None

    def playing(after: int) -> Callable[[dict[str, Any]], bool]:
        return lambda s: s["seq"] >= after and s["view"] is not None and s["view"]["phase"] == "playing"

    async def play() -> tuple[int, str, str]:
        state = max(await both(players, playing(20)), key=lambda s: s["seq"])
        mover = players[state["view"]["turn"]]
        assert mover.client is not None
        state = await mover.play_until(lambda s: s["seq"] >= state["seq"])  # the mover's latest
        hand = state["view"]["hand"]
        assert state["view"]["turn"] == players.index(mover) and len(hand) >= 2
        stale.process.send_signal(signal.SIGSTOP)
        await mover.client.send({"type": "play", "card": hand[0], "seq": state["seq"]})
        # the relays see the lease expire and close; the players reconnect elsewhere, and the
        # mover plays another card
        past = state["seq"]
        await asyncio.gather(mover.play_until(lambda s: s["seq"] > past, choose=lambda v: hand[-1]),
                             *(p.play_until(lambda s: s["seq"] > past) for p in players if p is not mover))
        stale.process.send_signal(signal.SIGCONT)
        await asyncio.sleep(3)
        await both(players, finished)
        return state["seq"] + 1, hand[0], hand[-1]

    seq, stale_card, new_card = asyncio.run(play())
    assert any(code == 1012 for p in players for code, _ in p.closes)
    assert stale.process.poll() is None
    assert "fence moved on" in stale.output(), stale.output()
    assert [c for c in [p.client for p in players] if c]
    clients = [p.client for p in players if p.client is not None]
    assert acknowledged(clients) == cluster.plays(table_id)
    stored = {play[0]: play[2] for play in cluster.plays(table_id)}
    assert stored[seq] == new_card != stale_card
    assert cluster.owner(table_id) is not stale
    verified_record(cluster.servers[1], table_id)


def test_sigterm_drains_a_process_with_games_running(start_cluster: Callable[..., Cluster]) -> None:
    """SIGTERM: the process hands its tables over and closes its connections with the
    reconnect hint; the games go on elsewhere and end soundly."""
    cluster = start_cluster(3)
    tables = [two_player_table(cluster, owner=0), two_player_table(cluster, owner=1)]
    players = [Player(cluster, table_id, token, first) for table_id, ana, ben in tables
               for token, first in ((ana, 0), (ben, 1))]

    async def play() -> None:
        await asyncio.gather(*(p.play_until(lambda s: s["seq"] >= 20) for p in players))
        cluster.servers[0].process.send_signal(signal.SIGTERM)  # type: ignore[union-attr]
        await asyncio.gather(*(p.play_until(finished) for p in players))

    asyncio.run(play())
    assert cluster.servers[0].process is not None
    assert cluster.servers[0].process.wait(20) is not None
    assert "handing" in cluster.servers[0].output()
    assert any(code == 1012 and "restarting" in reason for p in players for code, reason in p.closes)
    for index, (table_id, _, _) in enumerate(tables):
        clients = [p.client for p in players[2 * index:2 * index + 2]]
        assert all(clients)
        assert acknowledged(clients) == cluster.plays(table_id)  # type: ignore[arg-type]
        verified_record(cluster.servers[2], table_id)
        assert cluster.owner(table_id) in cluster.servers[1:]


def test_the_turn_clock_survives_a_takeover(start_cluster: Callable[..., Cluster]) -> None:
    """The turn's deadline after a takeover is the one set before it, not a fresh clock."""
    cluster = start_cluster(2)
    table_id, ana_token, ben_token = two_player_table(cluster, owner=0, clock=60)

    async def deadlines() -> tuple[float, float]:
        ana = Player(cluster, table_id, ana_token, 1)
        ben = Player(cluster, table_id, ben_token, 1)
        dealt = await both([ana, ben], lambda s: s["turn_deadline"] is not None)
        before = dealt[0]["turn_deadline"]["at"]
        cluster.servers[0].kill()
        await asyncio.sleep(1)
        assert ana.client is not None
        await ana.client.close()
        ana.client = None
        again = await ana.connect(since=None)
        state = await again.expect("state", timeout=30)
        return before, state["turn_deadline"]["at"]

    before, after = asyncio.run(deadlines())
    assert abs(after - before) < 1.0, (before, after)


def test_a_cluster_needs_postgresql(tmp_path: object) -> None:
    """--redis with an SQLite database: a clear one-line error."""
    done = subprocess.run([sys.executable, "-m", "kseri", "serve", "--db", "sqlite+aiosqlite:///x.db",
                           "--redis", "redis://127.0.0.1:1/0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "needs a PostgreSQL database" in done.stderr


def test_a_single_process_server_and_a_cluster_never_share_a_database(
        start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(1)
    alone = [sys.executable, "-m", "kseri", "serve", "--port", "0", "--db", cluster.database_url]
    done = subprocess.run(alone, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "another kseri serve is using the database" in done.stderr


def test_relayed_connections_count_in_presence_and_leave(start_cluster: Callable[..., Cluster]) -> None:
    """A seat connected through another process shows as connected; it shows as away when its
    client leaves, and when the relaying process dies."""
    cluster = start_cluster(3)
    table_id, ana_token, ben_token = two_player_table(cluster, owner=0)

    def ben_connected(connected: bool) -> Callable[[dict[str, Any]], bool]:
        return lambda table: table["seats"][1]["connected"] is connected

    async def comings_and_goings() -> None:
        ana = await Client.connect(cluster.servers[0], table_id, ana_token)
        ben = await Client.connect(cluster.servers[1], table_id, ben_token)  # relayed to the owner
        await ana.presence_until(ben_connected(True))
        await ben.close()
        await ana.presence_until(ben_connected(False))
        await Client.connect(cluster.servers[2], table_id, ben_token)  # relayed again
        await ana.presence_until(ben_connected(True))
        cluster.servers[2].kill()
        await ana.presence_until(ben_connected(False))

    asyncio.run(comings_and_goings())


def test_a_finished_table_let_go_is_served_by_its_lease_holder(start_cluster: Callable[..., Cluster]) -> None:
    """A finished table its owner has just let go of (its lease not yet released: the moment
    between the two) is loaded again by that owner when another process relays a spectator
    to it, instead of sending the spectator to reconnect."""
    cluster = start_cluster(2, limits="finished_kept=1")
    owner = cluster.servers[0]
    table_id = owner.create([bot("random"), bot("greedy")])["table"]["id"]
    deadline = time.monotonic() + 60
    while cluster.rows("SELECT owner FROM leases l JOIN tables t ON t.id = l.table_id "
                       "WHERE l.table_id = $1 AND t.finished AND l.owner IS NULL", table_id) == []:
        assert time.monotonic() < deadline, "the finished table was never let go"
        time.sleep(0.2)
    me = re.search(r"this is process (\S+)", owner.output())
    assert me is not None
    cluster.rows("UPDATE leases SET owner = $1, expires_at = extract(epoch from clock_timestamp()) + 30 "
                 "WHERE table_id = $2", me[1], table_id)
    history = asyncio.run(spectated(cluster, table_id))  # through the other process, relayed
    assert finished(history[-1])
    assert cluster.owner(table_id) is owner

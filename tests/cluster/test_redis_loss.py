"""Redis stops in the middle of a game (its process shut down) and comes back: the owner of
the table keeps it (its lease lives in PostgreSQL), a player whose frames were relayed through
Redis reconnects and plays on, and no play is lost or applied twice. Once Redis is back, the
processes relay again."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from clusterkit import Cluster, Player, acknowledged, both, spectated, two_player_table, verified_record
from serverkit import Json, audit, finished, free_port, human

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


class OwnRedis:
    """A Redis server of this test's own (``scripts/redis`` on a free port), to stop and start."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.env = os.environ | {"KSERI_REDIS_PORT": str(self.port), "KSERI_REDIS_DIR": str(folder)}
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        subprocess.run([SCRIPTS / "redis", "start"], env=self.env, check=True, capture_output=True)

    def stop(self) -> None:
        subprocess.run([SCRIPTS / "redis", "stop"], env=self.env, check=True, capture_output=True)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    redis = OwnRedis(tmp_path)
    redis.start()
    yield redis
    redis.stop()


def test_a_game_goes_on_through_a_redis_outage(services: tuple[str, str], own_redis: OwnRedis) -> None:
    cluster = Cluster(services[0], own_redis.url, size=2).start()
    try:
        table_id, ana_token, ben_token = two_player_table(cluster, owner=0)
        # Ana is on the owner; Ben's frames are relayed from the other process through Redis
        players = [Player(cluster, table_id, ana_token, 0), Player(cluster, table_id, ben_token, 1)]

        async def play() -> None:
            await both(players, lambda s: s["seq"] >= 20)
            own_redis.stop()
            await both(players, lambda s: s["seq"] >= 45)
            # meanwhile what needs Redis says so (the lobby merges every process's tables)
            lobby = httpx.get(f"{cluster.servers[1].http}/api/lobby", timeout=20)
            assert lobby.status_code == 503 and lobby.headers["Retry-After"], lobby.text
            assert lobby.json()["error"]["code"] == "cluster-unavailable"
            assert httpx.get(f"{cluster.servers[1].http}/readyz", timeout=20).status_code == 503
            own_redis.start()
            await both(players, finished)

        asyncio.run(play())
        assert all(s.process is not None and s.process.poll() is None for s in cluster.servers)
        # the table never moved: no process took another's subscription lapse for its death
        assert not any("took table" in server.output() for server in cluster.servers)
        assert cluster.owner(table_id) is cluster.servers[0]
        # Ben's relayed connection was closed with "try again later", and he played on at the owner
        assert (1013, "the server cannot reach the cluster's Redis; reconnect") in players[1].closes
        clients = [p.client for p in players if p.client is not None]
        assert acknowledged(clients) == cluster.plays(table_id)
        verified_record(cluster.servers[1], table_id)
        assert audit(asyncio.run(spectated(cluster, table_id)), clients) > 0
        # relaying works again: a table opened on one process is joined through the other
        fresh = cluster.servers[1].create([human("Cleo"), human("Dan")])["table"]["id"]
        cluster.servers[0].join(fresh, name="Dan")
        for server in cluster.servers:
            assert httpx.get(f"{server.http}/readyz", timeout=20).status_code == 200
    finally:
        cluster.stop()


def test_a_relayed_client_its_owner_forgot_is_told_to_reconnect(services: tuple[str, str],
                                                                own_redis: OwnRedis) -> None:
    """Both processes' subscriptions are cut and Redis lets no new connection in for a while:
    the owner's message to the relaying process is heard by nobody, so the owner forgets that
    client as if its relay had died, while the relay, alive, keeps it. Once the relay listens
    again, its next check asks the owner which of its clients it still serves and closes the
    forgotten one with the reconnect hint: the player plays on instead of waiting forever."""
    import redis

    cluster = Cluster(services[0], own_redis.url, size=2).start()
    admin = redis.Redis.from_url(own_redis.url)
    admin.ping()  # its connection stays signed in when a password is set below
    try:
        table_id, ana_token, ben_token = two_player_table(cluster, owner=0)
        # Ana is on the owner; Ben's frames are relayed from the other process through Redis
        players = [Player(cluster, table_id, ana_token, 0), Player(cluster, table_id, ben_token, 1)]

        def anas_turn(state: Json) -> bool:
            return state["seq"] >= 10 and state["view"] is not None and state["view"]["turn"] == 0

        async def play() -> None:
            before = (await both(players, anas_turn))[0]["seq"]
            admin.config_set("requirepass", "locked-out")
            admin.client_kill_filter(_type="pubsub")
            await players[0].play_until(lambda s: s["seq"] > before)  # told to Ben's relay: unheard
            ana = players[0].client
            assert ana is not None
            if not any(m["type"] == "presence" and not m["table"]["seats"][1]["connected"]
                       for m in ana.received):
                await ana.presence_until(lambda table: not table["seats"][1]["connected"], timeout=60)
            admin.config_set("requirepass", "")
            await both(players, finished)

        asyncio.run(play())
        assert (1012, "the table moved to another server process; reconnect") in players[1].closes
        assert not any("took table" in server.output() for server in cluster.servers)
        clients = [p.client for p in players if p.client is not None]
        assert acknowledged(clients) == cluster.plays(table_id)
        verified_record(cluster.servers[1], table_id)
    finally:
        admin.config_set("requirepass", "")
        admin.close()
        cluster.stop()

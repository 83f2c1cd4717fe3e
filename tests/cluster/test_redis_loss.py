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
from serverkit import audit, finished, free_port, human

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

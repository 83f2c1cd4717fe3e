"""An owning process that loses its database (its connections to PostgreSQL ended and new
ones refused, the process itself fine) lets its tables go once its lease has run out; another
process takes them over by replaying their logs, and the match ends with no play lost or
applied twice. When the database is back, the process serves again."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable

import httpx
from clusterkit import (
    LEASE,
    Cluster,
    Player,
    acknowledged,
    both,
    spectated,
    sql,
    two_player_table,
    verified_record,
)
from serverkit import Server, audit, finished, human
from sqlalchemy.engine import make_url


def test_the_owner_that_loses_its_database_is_taken_over(start_cluster: Callable[..., Cluster]) -> None:
    cluster = start_cluster(2)
    # the owner logs in as a role of its own: PostgreSQL can then end its connections and refuse
    # new ones (NOLOGIN) while the other processes carry on, as a cut network would
    role = f"owner_{secrets.token_hex(4)}"
    cluster.rows(f"CREATE ROLE {role} LOGIN SUPERUSER")
    try:
        url = make_url(cluster.database_url).set(username=role)
        owner = Server(url.render_as_string(hide_password=False),
                       {"--redis": cluster.redis_url, "--lease": LEASE}).start()
        cluster.servers.insert(0, owner)
        table_id, ana_token, ben_token = two_player_table(cluster, owner=0)
        # both players connect to the other processes: their frames are relayed to the owner
        players = [Player(cluster, table_id, ana_token, 1), Player(cluster, table_id, ben_token, 2)]

        async def play() -> None:
            await both(players, lambda s: s["seq"] >= 30)
            await sql(cluster.database_url, f"ALTER ROLE {role} NOLOGIN")
            await sql(cluster.database_url,
                      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", role)
            # meanwhile it says so, and changes nothing
            answer = httpx.post(f"{owner.http}/api/tables", json={"seats": [human("Cleo"), human("Dan")]},
                                timeout=20)
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"]["code"] == "storage-unavailable"
            answer = httpx.get(f"{owner.http}/api/leaderboard/greek", timeout=20)
            assert answer.status_code == 503 and answer.headers["Retry-After"], answer.text
            assert answer.json()["error"]["code"] == "storage-unavailable"
            assert httpx.get(f"{owner.http}/readyz", timeout=20).status_code == 503
            await both(players, finished)

        asyncio.run(play())
        assert owner.process is not None and owner.process.poll() is None, "the owner must live on"
        log = owner.output()
        assert "could not renew the leases" in log, log
        assert any("took table" in s.output() for s in cluster.servers[1:])
        assert cluster.owner(table_id) is not owner
        clients = [p.client for p in players if p.client is not None]
        assert len(clients) == 2
        assert acknowledged(clients) == cluster.plays(table_id)
        verified_record(cluster.servers[1], table_id)
        assert audit(asyncio.run(spectated(cluster, table_id)), clients) > 0
        # the database back, the process serves again: it opens a table, and owns it
        cluster.rows(f"ALTER ROLE {role} LOGIN")
        deadline = time.monotonic() + 20  # it holds the database's lock again within a second or so
        while httpx.get(f"{owner.http}/readyz", timeout=20).status_code != 200:
            assert time.monotonic() < deadline, owner.output()
            time.sleep(0.2)
        fresh = owner.create([human("Cleo"), human("Dan")])["table"]["id"]
        assert cluster.owner(fresh) is owner
    finally:
        cluster.stop()
        with contextlib.suppress(Exception):
            cluster.rows(f"DROP ROLE IF EXISTS {role}")

"""Health, readiness and Prometheus metrics (``server/metrics.py``) on a real server: the
figures move with what happens (tables, connections, plays, commits) and readiness follows the
database."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable

import httpx
import pytest
from serverkit import Client, Server, bot, finished, human, postgres_url, scrape


def postgres(url: str, sql: str) -> None:
    """Run one statement on the test PostgreSQL server."""
    import asyncpg

    async def run() -> None:
        connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            await connection.execute(sql)
        finally:
            await connection.close()

    asyncio.run(run())


async def until(condition: Callable[[], bool], timeout: float = 20) -> None:
    """Wait for ``condition`` (a figure the server updates when a socket closes)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true"
        await asyncio.sleep(0.05)


async def test_the_metrics_follow_tables_connections_plays_and_commits(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    before = scrape(server)
    assert before["kseri_live_tables"] == 0
    assert before["kseri_connections"] == 0
    assert before["kseri_plays_total"] == 0
    assert before["kseri_takeovers_total"] == 0
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=30")
    player = await Client.connect(server, created["table"]["id"], created["token"])
    watcher = await Client.connect(server, created["table"]["id"])
    during = scrape(server)
    assert during["kseri_live_tables"] == 1
    assert during["kseri_connections"] == 2
    await player.play_until(finished)
    plays = {s["seq"] for s in player.states if s["event"] and s["event"]["kind"] == "play"}
    after = scrape(server)
    assert after["kseri_plays_total"] == len(plays) > 0  # every stored play, the bot's too
    commits = after["kseri_commit_seconds_count"]
    assert commits >= 2 and after["kseri_commit_seconds_sum"] > 0
    assert after["kseri_commit_seconds_bucket{+Inf}"] == commits
    buckets = [value for name, value in after.items() if name.startswith("kseri_commit_seconds_bucket")]
    assert buckets == sorted(buckets)  # cumulative
    await player.close()
    await watcher.close()
    await until(lambda: scrape(server)["kseri_connections"] == 0)
    assert scrape(server)["kseri_takeovers_total"] == 0


def test_health_and_readiness_of_a_working_server(start_server: Callable[..., Server],
                                                  sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    alive = httpx.get(server.http + "/healthz", timeout=10)
    assert alive.status_code == 200 and alive.json() == {"status": "alive"}
    ready = httpx.get(server.http + "/readyz", timeout=10)
    assert ready.status_code == 200 and ready.json() == {"status": "ready", "problems": []}
    paths = httpx.get(server.http + "/openapi.json", timeout=10).json()["paths"]
    assert not {"/healthz", "/readyz", "/metrics"} & set(paths)  # for machines, not API clients


@pytest.mark.postgres
def test_readiness_fails_naming_the_database_when_it_is_gone(start_server: Callable[..., Server]) -> None:
    base = postgres_url()
    if base is None:
        pytest.skip("KSERI_TEST_POSTGRES_URL is not set (scripts/postgres start prints it)")
    name = f"kseri_{secrets.token_hex(6)}"
    postgres(base, f"CREATE DATABASE {name}")
    try:
        server = start_server(base.rsplit("/", 1)[0] + "/" + name)
        assert httpx.get(server.http + "/readyz", timeout=10).status_code == 200
        postgres(base, f"DROP DATABASE {name} WITH (FORCE)")
        answer = httpx.get(server.http + "/readyz", timeout=10)
        assert answer.status_code == 503
        assert answer.json()["status"] == "not-ready"
        assert any("database" in problem for problem in answer.json()["problems"])
        assert httpx.get(server.http + "/healthz", timeout=10).status_code == 200  # alive all the same
    finally:
        postgres(base, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


async def test_finished_tables_leave_memory_and_never_count_against_the_cap(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    """A finished match nobody watches is let go after ``finished_kept`` seconds (the live
    tables gauge falls) and loads again, unchanged, when asked for; only tables waiting or in
    play count against ``max_live_tables``."""
    server = start_server(sqlite_url, limits="finished_kept=1,max_live_tables=1")
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=30")
    table_id = created["table"]["id"]
    full = httpx.post(server.http + "/api/tables", json={"seats": [human(), human()]}, timeout=10)
    assert full.status_code == 503 and full.json()["error"]["code"] == "too-many-tables"
    player = await Client.connect(server, table_id, created["token"])
    await player.play_until(finished)
    shown = httpx.get(server.http + f"/api/tables/{table_id}", timeout=10).json()
    record = httpx.get(server.http + f"/api/tables/{table_id}/record", timeout=10).text
    waiting = server.create([human(), human()])  # the finished table leaves room for it
    assert scrape(server)["kseri_live_tables"] == 2
    await asyncio.sleep(2.5)
    assert scrape(server)["kseri_live_tables"] == 2  # watched: kept
    await player.close()
    await until(lambda: scrape(server)["kseri_live_tables"] == 1)
    for seat in shown["seats"]:
        seat["connected"] = seat["kind"] == "bot"  # bots are always there; Eleni has left
    assert httpx.get(server.http + f"/api/tables/{table_id}", timeout=10).json() == shown
    assert httpx.get(server.http + f"/api/tables/{table_id}/record", timeout=10).text == record
    assert scrape(server)["kseri_live_tables"] == 2  # loaded again from the database
    assert httpx.get(server.http + f"/api/tables/{waiting['table']['id']}", timeout=10).status_code == 200

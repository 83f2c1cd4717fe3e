"""Tournaments scheduled by the server in a cluster (``server/schedule.py``): three processes
with the same ``--schedule`` create each occurrence once (its claim is a unique key in the
shared database), at the time the injectable clock says."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from clusterkit import Cluster

from kseri.server.daily import CLOCK_FILE
from kseri.server.schedule import TICK


def test_three_processes_create_each_occurrence_once(start_cluster: Callable[..., Cluster], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    now = tmp_path / "now.txt"
    now.write_text("2026-12-04T11:00:00+00:00")  # 90 minutes before 12:30: not announced yet
    monkeypatch.setenv(CLOCK_FILE, str(now))
    cluster = start_cluster(size=3, schedule="daily 12:30 pisti duplicate 2")
    time.sleep(3 * TICK)
    assert cluster.rows("SELECT occurrence FROM scheduled_tournaments") == []
    now.write_text("2026-12-04T12:00:00+00:00")
    deadline = time.monotonic() + 60
    while not cluster.rows("SELECT tournament_id FROM scheduled_tournaments WHERE tournament_id IS NOT NULL"):
        assert time.monotonic() < deadline, "the occurrence was not created"
        time.sleep(0.2)
    time.sleep(3 * TICK)  # every process has looked again since
    claims = cluster.rows("SELECT occurrence, tournament_id FROM scheduled_tournaments")
    made = cluster.rows("SELECT id, name, format, rounds FROM tournaments")
    assert len(claims) == 1 and [tuple(row) for row in made] == [
        (claims[0]["tournament_id"], "Daily pisti duplicate 12:30 UTC", "duplicate", 2)]
    for server in cluster.servers:  # every process lists it, with nobody entered yet
        listed = httpx.get(f"{server.http}/api/tournaments", timeout=10).json()["tournaments"]
        assert [(t["id"], t["entrants"]) for t in listed] == [(claims[0]["tournament_id"], 0)]

"""Tournaments scheduled by the server (``server/schedule.py``): entries parsed (and bad ones
refused by name), the next start worked out by hand, and through a real server with the
injectable clock: each occurrence created once, at its time (a restart makes none again), open
to join, organised by nobody who plays."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from playerkit import Browser
from serverkit import Server

from kseri.server.schedule import TICK, Entry, parse_schedule

Json = dict[str, Any]
NOON = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)  # a Friday
ENTRY = "daily 12:30 greek swiss 3"
NAME = "Daily greek swiss 12:30 UTC"


def test_entries_and_their_next_start() -> None:
    daily = Entry.parse("daily 18:00 greek swiss 5")
    assert (daily.weekday, daily.hour, daily.minute, daily.rules, daily.format, daily.rounds) == (
        None, 18, 0, "greek", "swiss", 5)
    assert daily.next_start(NOON) == datetime(2026, 12, 4, 18, 0, tzinfo=UTC)
    six = datetime(2026, 12, 4, 18, 0, tzinfo=UTC)
    assert daily.next_start(six) == datetime(2026, 12, 5, 18, 0, tzinfo=UTC)  # not the same moment
    assert daily.name() == "Daily greek swiss 18:00 UTC"
    weekly = Entry.parse("weekly Sun 09:30 pisti duplicate 4")
    assert weekly.next_start(NOON) == datetime(2026, 12, 6, 9, 30, tzinfo=UTC)  # the coming Sunday
    sunday = datetime(2026, 12, 6, 9, 30, tzinfo=UTC)
    assert weekly.next_start(sunday) == datetime(2026, 12, 13, 9, 30, tzinfo=UTC)
    assert weekly.name() == "Sunday pisti duplicate 09:30 UTC"
    # an occurrence's key: its start and the entry, the same in every process
    start = daily.next_start(NOON)
    assert daily.occurrence(start) == Entry.parse("daily  18:00 greek swiss 5").occurrence(start)
    assert daily.occurrence(start) != weekly.occurrence(start)
    assert len(daily.occurrence(start)) <= 120
    for text, problem in (("hourly 18:00 greek swiss 5", "begins with 'daily' or 'weekly'"),
                          ("weekly 18:00 greek swiss 5", "names its day"),
                          ("daily 25:00 greek swiss 5", "HH:MM"),
                          ("daily 18:00 greek swiss", "reads 'daily HH:MM RULES FORMAT ROUNDS'"),
                          ("daily 18:00 canasta swiss 5", "bad rules 'canasta'"),
                          ("daily 18:00 three-player swiss 5", "two-player"),
                          ("daily 18:00 greek arena 5", "the format is one of swiss, duplicate"),
                          ("daily 18:00 greek swiss 99", "the rounds are 1 to")):
        with pytest.raises(ValueError, match=problem):
            parse_schedule([text])


def scheduled(server: Server) -> list[Json]:
    """The server's listed tournaments of the entry ``daily 12:30 greek swiss 3``."""
    listed: list[Json] = httpx.get(f"{server.http}/api/tournaments", timeout=10).json()["tournaments"]
    return [t for t in listed if str(t["name"]).startswith(NAME)]


def wait_for_count(server: Server, count: int) -> list[Json]:
    """The scheduled tournaments once there are ``count`` (within a minute)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = scheduled(server)
        if len(found) >= count:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{count} scheduled tournaments did not come: {scheduled(server)}")


def test_each_occurrence_is_created_once_at_its_time(start_server: Callable[..., Server], database_url: str,
                                                      clock: Callable[[str], None]) -> None:
    """On SQLite and PostgreSQL; several processes: tests/cluster/test_schedule.py."""
    clock("2026-12-04T11:00:00+00:00")  # 90 minutes before: not announced yet
    server = start_server(database_url, schedule=ENTRY)
    time.sleep(3 * TICK)  # a few of the scheduler's looks
    assert scheduled(server) == []
    clock("2026-12-04T11:45:00+00:00")  # 45 minutes before: due
    (made,) = wait_for_count(server, 1)
    assert (made["status"], made["format"], made["rounds"], made["rules"], made["entrants"]) == (
        "open", "swiss", 3, "greek", 0)
    assert made["starts"] == datetime(2026, 12, 4, 12, 30, tzinfo=UTC).timestamp()  # by the server's clock
    # players join it; nobody may start or delete the server's tournament
    player = Browser(server)
    player.sign_up("early")
    assert player.post(f"/api/tournaments/{made['id']}/join").status_code == 204
    assert player.post(f"/api/tournaments/{made['id']}/start").status_code == 403
    assert player.http.delete(f"/api/tournaments/{made['id']}",
                              headers={"X-CSRF-Token": player.csrf}).status_code == 403
    # killed and started again: the occurrence is not made twice
    server.kill()
    server.start()
    time.sleep(3 * TICK)
    assert [(t["id"], t["entrants"]) for t in scheduled(server)] == [(made["id"], 1)]
    # the next day's occurrence, once again
    clock("2026-12-05T12:00:00+00:00")
    found = wait_for_count(server, 2)
    time.sleep(3 * TICK)
    assert len(scheduled(server)) == len(found) == 2
    player.close()


def test_a_bad_schedule_entry_stops_the_server_with_its_problem(sqlite_url: str) -> None:
    answer = subprocess.run([sys.executable, "-m", "kseri", "serve", "--db", sqlite_url, "--port", "0",
                             "--schedule", "daily 18:00 greek arena 5"], capture_output=True, text=True,
                            timeout=60)
    assert answer.returncode == 2 and "the format is one of swiss, duplicate" in answer.stderr

"""Hostile requests, each finding of the hardening review, through the real server on loopback:
no request freezes, floods or corrupts it, and each refusal names what was wrong."""

from __future__ import annotations

import asyncio
import json
import resource
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serverkit import LAX, START_TIMEOUT, Client, Server, bot, finished, free_port, human, scrape

from kseri.rules import OPTION_NAMES, OPTION_RANGES

HOSTILE_NUMBERS = st.sampled_from([10**21, -(10**21), 10**23, 1e308, -1.0, 0.5, 2.0, 6.0, True,
                                   "2", None, [], {}, -1, 0, 10**4 + 1, 101])
HOSTILE_VALUES = (HOSTILE_NUMBERS | st.integers(-(10**30), 10**30) | st.text(max_size=50)
                  | st.floats(allow_nan=False, allow_infinity=False))
RULE_OPTIONS = st.dictionaries(st.sampled_from(list(OPTION_NAMES)), HOSTILE_VALUES, min_size=1, max_size=4)


@pytest.fixture(scope="module")
def hard_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    path = tmp_path_factory.mktemp("hard") / "kseri.db"
    server = Server(f"sqlite+aiosqlite:///{path}", {"--limits": LAX}).start()
    yield server
    server.stop()


def _responsive(server: Server) -> None:
    """The server still answers: nothing holds its event loop for good. (How quickly it answers
    is the benchmarks' to measure, not a test's on a shared machine.)"""
    assert httpx.get(server.http + "/api/rules", timeout=60).status_code == 200


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=RULE_OPTIONS)
def test_hostile_rule_values_are_refused_naming_the_option_or_make_a_playable_table(
        hard_server: Server, options: dict[str, Any]) -> None:
    """Findings 1-3: enormous, fractional, negative, mistyped values. Each is a 422 naming the
    option, or a valid table that bots play to its end; never a 500, never a stuck server."""
    body = {"rules": {"name": "custom"} | options, "seats": None}
    answer = httpx.post(hard_server.http + "/api/tables", json=body, timeout=10)
    assert answer.status_code in (201, 422), answer.text
    if answer.status_code == 422:
        error = answer.json()["error"]
        assert error["code"] in ("bad-rules", "bad-request")
        assert error["field"].startswith("rules")
        named = error["field"].removeprefix("rules.")
        assert named in options or error["field"] == "rules" or named in error["message"]
    _responsive(hard_server)


def test_enormous_points_are_refused_and_the_server_still_answers(hard_server: Server) -> None:
    """Finding 1, the example: a card worth 10²¹ once froze the server for good."""
    for rules in ({"card_points": [["A", 10**21]]}, {"kseri_value": 10**21}, {"majority_bonus": 0.5},
                  {"target": 1e308}, {"players": 2.0}, {"batch_size": 6.0}, {"card_points": [["A", -1]]},
                  {"target": 10**23}):
        answer = httpx.post(hard_server.http + "/api/tables", json={"rules": rules}, timeout=5)
        assert answer.status_code == 422, (rules, answer.text)
        assert answer.json()["error"]["field"] == f"rules.{next(iter(rules))}"
    low, high = OPTION_RANGES["target"]
    answer = httpx.post(hard_server.http + "/api/tables", json={"rules": "greek,target=99999"}, timeout=5)
    assert answer.status_code == 422
    assert f"target must be {low} to {high}" in answer.json()["error"]["message"]
    _responsive(hard_server)


def test_a_huge_body_or_name_is_refused(hard_server: Server) -> None:
    """Finding 5: bodies are bounded (413 before they are read whole), names are bounded."""
    big = b'{"rules": "' + b"x" * (200 * 1024) + b'"}'
    answer = httpx.post(hard_server.http + "/api/tables", content=big,
                        headers={"content-type": "application/json"}, timeout=10)
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "too-large"

    def chunks() -> Iterator[bytes]:
        yield b'{"rules": "'
        for _ in range(100):
            yield b"y" * 4096
        yield b'"}'

    streamed = httpx.post(hard_server.http + "/api/tables", content=chunks(),
                          headers={"content-type": "application/json"}, timeout=10)
    assert streamed.status_code == 413
    named = httpx.post(hard_server.http + "/api/tables", json={"rules": {"name": "n" * 500}}, timeout=5)
    assert named.status_code == 422 and named.json()["error"]["field"] == "rules.name"


def test_table_creation_is_throttled_per_address(start_server: Callable[..., Server],
                                                  sqlite_url: str) -> None:
    """Finding 5: an address opening tables as fast as it can is told to wait."""
    server = start_server(sqlite_url, limits="tables_per_minute=6,tables_burst=3")
    codes = [httpx.post(server.http + "/api/tables", json={"seats": [human(), bot()]}, timeout=5)
             for _ in range(5)]
    assert [c.status_code for c in codes[:3]] == [201, 201, 201]
    refused = codes[3]
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "throttled"
    assert 1 <= int(refused.headers["retry-after"]) <= 10
    _responsive(server)


def test_the_lobby_is_paginated_and_unjoined_tables_expire(start_server: Callable[..., Server],
                                                          sqlite_url: str) -> None:
    """Finding 5: the lobby comes a page at a time; a table nobody joined goes away."""
    server = start_server(sqlite_url, limits=LAX + ",lobby_page=3,waiting_expiry=2")
    ids = [server.create([human(), human()])["table"]["id"] for _ in range(5)]
    page = httpx.get(server.http + "/api/lobby", timeout=5).json()
    assert page["total"] == 5 and len(page["tables"]) == 3 and page["offset"] == 0
    rest = httpx.get(server.http + "/api/lobby", params={"offset": 3, "limit": 100}, timeout=5).json()
    assert [t["id"] for t in page["tables"] + rest["tables"]] == list(reversed(ids))
    deadline = time.monotonic() + 15
    while httpx.get(server.http + "/api/lobby", timeout=5).json()["total"] and time.monotonic() < deadline:
        time.sleep(0.5)
    assert httpx.get(server.http + "/api/lobby", timeout=5).json()["total"] == 0
    assert httpx.get(server.http + f"/api/tables/{ids[0]}", timeout=5).status_code == 404
    server.stop()
    rows = sqlite3.connect(sqlite_url.removeprefix("sqlite+aiosqlite:///")).execute(
        "SELECT COUNT(*) FROM tables").fetchone()
    assert rows == (0,)


def test_a_second_server_on_the_same_sqlite_file_refuses_to_start(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    """Finding 6: one process per database; the second says why, in one line."""
    start_server(sqlite_url)
    second = subprocess.run([sys.executable, "-m", "kseri", "serve", "--port", str(free_port()),
                             "--db", sqlite_url], capture_output=True, text=True, timeout=60)
    assert second.returncode == 1
    assert "another kseri serve is using the database" in second.stderr
    assert "Traceback" not in second.stderr + second.stdout
    assert "open http" not in second.stdout


def test_a_read_only_database_is_one_sentence(tmp_path: Path) -> None:
    """Finding 12: a database that cannot be written stops the start with a sentence."""
    path = tmp_path / "kseri.db"
    sqlite3.connect(path).close()
    url = f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true"
    run = subprocess.run([sys.executable, "-m", "kseri", "serve", "--port", str(free_port()), "--db", url],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert run.stderr.startswith("kseri serve: cannot use the database") and "readonly" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_full_disk_answers_503_and_plays_stay_correct(tmp_path: Path) -> None:
    """Finding 12: when the database cannot grow, creating a table is a JSON 503; the server
    goes on answering. The disk is made full by a file-size limit on the server process."""
    path = tmp_path / "kseri.db"
    server = Server(f"sqlite+aiosqlite:///{path}", {"--limits": LAX})
    server.start()
    size = path.stat().st_size + (tmp_path / "kseri.db-wal").stat().st_size
    server.stop()
    limit = size + 256 * 1024

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    port = free_port()
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "kseri", "serve", "--port", str(port), "--db",
                                f"sqlite+aiosqlite:///{path}", "--limits", LAX], stdout=log, stderr=log,
                               preexec_fn=small_files)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                httpx.get(base + "/api/rules", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.2)
        answers = []
        for _ in range(400):
            answer = httpx.post(base + "/api/tables", json={"rules": "greek", "seats": [human(), human()]},
                                timeout=10)
            answers.append(answer)
            if answer.status_code != 201:
                break
        assert answers[-1].status_code == 503, answers[-1].text
        assert answers[-1].json()["error"]["code"] == "storage-unavailable"
        assert httpx.get(base + "/api/rules", timeout=2).status_code == 200
    finally:
        process.kill()
        process.wait()
        log.close()


async def test_a_connection_that_stops_reading_is_closed(start_server: Callable[..., Server],
                                                          sqlite_url: str) -> None:
    """Finding 7: a client whose socket no longer takes messages (a tiny receive buffer, never
    read) lets them pile up on the server; past ``send_queue`` the server closes it (and a seat
    held that way counts as away: the same ``leave`` as any closed connection). The matches run to
    1,501 points, far more messages than the kernel's socket buffers hold (up to a few MB), so
    the server drops each socket while its match is in play, however fast the bots."""
    server = start_server(sqlite_url, limits=LAX + ",send_queue=30,max_backlog=20", bot_delay="0")
    ids = []
    for _ in range(3):
        body = {"seats": [bot("random"), bot("random")], "rules": "greek,target=1501"}
        ids.append(httpx.post(server.http + "/api/tables", json=body, timeout=10).json()["table"]["id"])
    stuck = []
    for table_id in ids:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect(("127.0.0.1", server.port))
        connection = await websockets.connect(server.ws(table_id), sock=sock, max_size=None,
                                              ping_interval=None)
        await connection.send(json.dumps({"type": "hello", "protocol": 1}))
        stuck.append(connection)
    deadline = time.monotonic() + 600  # the bots play on, nothing is read, until the server gives up
    while scrape(server)["kseri_connections"] > 0:
        assert time.monotonic() < deadline, "the server kept a connection that reads nothing"
        await asyncio.sleep(0.2)
    for table_id in ids:  # dropped, not finished with its match
        assert httpx.get(f"{server.http}/api/tables/{table_id}", timeout=10).json()["status"] == "playing"
    for connection in stuck:
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await asyncio.wait_for(connection.recv(), 60)  # what was buffered, then the end
    _responsive(server)


async def test_deep_json_is_bad_json_and_the_connection_lives(hard_server: Server) -> None:
    """Finding 8: JSON nested a thousand levels deep is answered, not a dropped connection."""
    table_id = hard_server.create([human(), human()])["table"]["id"]
    client = await Client.connect(hard_server, table_id)
    await client.connection.send("[" * 1500 + "]" * 1500)
    error = await client.expect("error")
    assert error["code"] == "bad-json"
    await client.send({"type": "ping"})
    assert (await client.expect("pong"))["type"] == "pong"
    await client.close()


async def test_a_flooding_connection_is_throttled_then_closed(hard_server: Server) -> None:
    """Finding 4: a connection that keeps sending after it is throttled is closed (1008)."""
    table_id = hard_server.create([human(), human()])["table"]["id"]
    connection = await websockets.connect(hard_server.ws(table_id))
    codes = []
    with pytest.raises(websockets.ConnectionClosed) as closed:
        for _ in range(500):
            await connection.send("{")
        while True:
            codes.append(json.loads(await asyncio.wait_for(connection.recv(), 10))["code"])
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert codes[:40] == ["bad-json"] * 40 and set(codes[40:]) == {"throttled"}
    _responsive(hard_server)


async def test_rematch_seats_are_reserved_and_the_call_is_idempotent(hard_server: Server) -> None:
    """Finding 9: a stranger cannot take a rematch seat; asking twice gives the same seat."""
    created = hard_server.create([human("Eleni"), human("Nikos")],
                                 rules="greek,target=1,target_rule=higher-wins")
    table_id = created["table"]["id"]
    joined = hard_server.join(table_id, name="Nikos")
    eleni = await Client.connect(hard_server, table_id, created["token"])
    nikos = await Client.connect(hard_server, table_id, joined["token"])
    await asyncio.gather(eleni.play_until(finished), nikos.play_until(finished))
    url = hard_server.http + f"/api/tables/{table_id}/rematch"
    first = httpx.post(url, headers={"authorization": f"Bearer {created['token']}"}, timeout=5)
    again = httpx.post(url, headers={"authorization": f"Bearer {created['token']}"}, timeout=5)
    assert first.status_code == again.status_code == 200
    assert first.json()["seat"] == again.json()["seat"] == 0
    assert first.json()["token"] == again.json()["token"]
    rematch_id = first.json()["table"]["id"]
    lobby = httpx.get(hard_server.http + "/api/lobby", params={"limit": 50}, timeout=5).json()
    assert rematch_id not in [t["id"] for t in lobby["tables"]]
    stranger = httpx.post(hard_server.http + f"/api/tables/{rematch_id}/join", json={}, timeout=5)
    assert stranger.status_code == 409 and stranger.json()["error"]["code"] == "seat-reserved"
    second = httpx.post(url, headers={"authorization": f"Bearer {joined['token']}"}, timeout=5)
    assert second.json()["seat"] == 1 and second.json()["table"]["id"] == rematch_id
    for client in (eleni, nikos):
        await client.close()


def test_every_response_carries_the_security_headers(hard_server: Server) -> None:
    """Finding 10: the page, the API, errors and refusals all carry them."""
    for method, path in (("GET", "/"), ("GET", "/api/rules"), ("GET", "/api/tables/nope"),
                         ("GET", "/static/css/style.css"), ("POST", "/api/tables")):
        answer = httpx.request(method, hard_server.http + path, json={"rules": "nope"}, timeout=5)
        assert "default-src 'self'" in answer.headers["content-security-policy"], path
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["referrer-policy"] == "no-referrer"


async def test_websockets_from_another_origin_are_refused(start_server: Callable[..., Server],
                                                          sqlite_url: str) -> None:
    """Finding 10: the Origin of an upgrade is the server's own, an allowed one, or none."""
    server = start_server(sqlite_url, allow_origin="https://friends.example")
    table_id = server.create([human(), human()])["table"]["id"]
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(server.ws(table_id), origin="https://evil.example")  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    for origin in (f"http://127.0.0.1:{server.port}", "https://friends.example", None):
        connection = await websockets.connect(server.ws(table_id), origin=origin)  # type: ignore[arg-type]
        await connection.send(json.dumps({"type": "hello", "protocol": 1}))
        assert json.loads(await connection.recv())["type"] == "welcome"
        await connection.close()


async def test_connections_are_bounded_per_seat_and_per_address(start_server: Callable[..., Server],
                                                                 sqlite_url: str) -> None:
    """Finding 4: more connections do not buy more: per seat and per address ceilings."""
    server = start_server(sqlite_url, limits="connections_per_address=6,connections_per_seat=2")
    created = server.create([human(), human()])
    table_id = created["table"]["id"]
    seated = [await Client.connect(server, table_id, created["token"]) for _ in range(2)]
    third = await websockets.connect(server.ws(table_id))
    await third.send(json.dumps({"type": "hello", "protocol": 1, "token": created["token"]}))
    assert json.loads(await third.recv())["code"] == "too-many-connections"
    others = [await websockets.connect(server.ws(table_id)) for _ in range(3)]
    with pytest.raises(websockets.InvalidStatus):
        await websockets.connect(server.ws(table_id))
    for connection in [third, *others]:
        await connection.close()
    for client in seated:
        await client.close()


async def test_hints_are_computed_once_a_turn_and_bounded_per_seat(start_server: Callable[..., Server],
                                                                   sqlite_url: str) -> None:
    """Finding 4: many hint requests from one seat, over several connections, cost one search
    a turn, and past the seat's allowance they are refused."""
    # one a minute: a slow machine's second turn still comes within the first hint's minute
    server = start_server(sqlite_url, limits=LAX + ",hints_per_minute=1")
    created = server.create([human(), bot("greedy")], rules="greek")
    table_id = created["table"]["id"]
    first = await Client.connect(server, table_id, created["token"])
    state = await first.play_until(lambda s: s["view"] is not None and s["view"]["turn"] == 0)
    second = await Client.connect(server, table_id, created["token"], since=state["seq"])
    answers = []
    for client in (first, second, first, second):
        await client.send({"type": "hint"})
        answers.append(await client.expect("hint"))
    assert all(a == answers[0] for a in answers)
    await first.play_until(lambda s: s["seq"] > state["seq"] and s["view"]["turn"] == 0)
    refused = None
    for _ in range(3):
        await first.send({"type": "hint"})
        message = await first.receive()
        while message["type"] not in ("hint", "error"):
            message = await first.receive()
        refused = message
    assert refused is not None and refused["type"] == "error" and refused["code"] == "throttled"
    await first.close()
    await second.close()


async def test_seat_churn_stores_nothing(hard_server: Server) -> None:
    """Finding 11: connecting and leaving a seat over and over adds no event to the log."""
    created = hard_server.create([human(), human()])
    table_id = created["table"]["id"]
    watcher = await Client.connect(hard_server, table_id)
    before = (await watcher.expect("state"))["seq"]
    for _ in range(20):
        client = await Client.connect(hard_server, table_id, created["token"])
        await client.close()
    presences = 0
    while presences < 40:
        presences += (await watcher.expect("presence"))["type"] == "presence"
    late = await Client.connect(hard_server, table_id)
    assert (await late.expect("state"))["seq"] == before
    for client in (watcher, late):
        await client.close()


async def test_a_spectator_far_behind_gets_the_latest_state_alone(start_server: Callable[..., Server],
                                                                 sqlite_url: str) -> None:
    """Finding 4: replaying a long table from its start is bounded: past ``max_backlog`` missed
    states, a client gets the latest state, and spectators' backlogs are computed once."""
    server = start_server(sqlite_url, limits=LAX + ",max_backlog=10")
    created = server.create([human(), bot("greedy")], rules="greek")
    table_id = created["table"]["id"]
    player = await Client.connect(server, table_id, created["token"])
    # her turn after 20 plays: nothing moves until she plays
    state = await player.play_until(lambda s: s["view"] is not None and len(s["view"]["plays"]) >= 20
                                    and s["view"]["turn"] == 0)
    far = await Client.connect(server, table_id, since=0)
    latest = await far.expect("state")
    assert latest["seq"] == state["seq"] and latest["event"] is None
    near = [await Client.connect(server, table_id, since=state["seq"] - 5) for _ in range(3)]
    backlogs = [[(await c.expect("state"))["seq"] for _ in range(5)] for c in near]
    assert backlogs == [list(range(state["seq"] - 4, state["seq"] + 1))] * 3
    for client in (player, far, *near):
        await client.close()


def test_the_limits_and_their_defaults_are_documented() -> None:
    """Every limit is in docs/server.md, with its default."""
    from kseri.server.limits import Limits

    text = (Path(__file__).parents[2] / "docs" / "server.md").read_text()
    for field_name in Limits.__dataclass_fields__:
        default = getattr(Limits(), field_name)
        assert f"`{field_name}`" in text, field_name
        assert f"`{default:g}`" in text or f"`{default}`" in text, (field_name, default)


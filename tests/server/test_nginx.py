"""``scripts/nginx`` balances round-robin over two ``kseri serve`` processes (each on its own
SQLite file here): HTTP requests and WebSocket upgrades alike go to each in turn, and a
WebSocket through it carries the game both ways."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from nginxkit import Nginx
from serverkit import Server, bot, human


async def next_state(ws: websockets.ClientConnection) -> dict[str, Any]:
    """The next ``state`` message (presence messages are passed over)."""
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] == "state":
            return message


@pytest.fixture
def balanced(start_server: Callable[..., Server], tmp_path: Path) -> Iterator[tuple[Nginx, list[Server]]]:
    servers = [start_server(f"sqlite+aiosqlite:///{tmp_path / f'kseri{n}.db'}") for n in range(2)]
    nginx = Nginx([server.port for server in servers]).start()
    yield nginx, servers
    nginx.stop()


def test_http_requests_go_to_each_server_in_turn(balanced: tuple[Nginx, list[Server]]) -> None:
    nginx, servers = balanced
    owners = []
    for _ in range(6):
        answer = httpx.post(nginx.http + "/api/tables", json={"rules": "greek"}, timeout=10)
        assert answer.status_code == 201, answer.text
        table_id = answer.json()["table"]["id"]
        found = [httpx.get(f"{s.http}/api/tables/{table_id}", timeout=10).status_code == 200 for s in servers]
        assert found.count(True) == 1  # stored by exactly one of them
        owners.append(found.index(True))
    assert owners in ([0, 1] * 3, [1, 0] * 3), owners


async def test_websockets_go_to_each_server_in_turn_and_carry_the_game(
        balanced: tuple[Nginx, list[Server]]) -> None:
    nginx, servers = balanced
    created = servers[0].create([human("Eleni"), bot("greedy")])  # a table the first server alone has
    table_id = created["table"]["id"]
    answers, held = [], []
    for _ in range(4):
        ws = await websockets.connect(nginx.ws(table_id), max_size=None, ping_interval=None)
        # the server without the table answers at once and closes, maybe before the hello goes
        with suppress(websockets.ConnectionClosedOK):
            await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": created["token"]}))
        first = json.loads(await ws.recv())
        answers.append(first["type"] if first["type"] == "welcome" else first["code"])
        held.append(ws)
    assert answers in (["welcome", "no-such-table"] * 2, ["no-such-table", "welcome"] * 2), answers
    player = held[answers.index("welcome")]
    state = await next_state(player)
    assert state["table"]["id"] == table_id
    # upstream: a play through nginx reaches the server and comes back as the next state
    while state["view"] is None or state["view"]["turn"] != state["view"]["seat"]:
        if state["view"] is None or state["view"]["phase"] == "round-over":
            await player.send(json.dumps({"type": "ready"}))
        state = await next_state(player)
    card = state["view"]["hand"][0]
    await player.send(json.dumps({"type": "play", "card": card, "seq": state["seq"]}))
    while not (state["event"] and state["event"]["kind"] == "play" and state["event"]["seat"] == 0):
        state = await next_state(player)
    assert state["event"]["card"] == card
    for ws in held:
        await ws.close()
    assert "[emerg]" not in nginx.error_log() and "[crit]" not in nginx.error_log()

"""Hostile clients for a kseri server, bounded in time: what `benchmarks/server.py --attack` and
the abuse test (`tests/server/test_abuse.py`) run beside honest players.

Each kind of attacker runs in a loop until ``stop`` from its own loopback address (so the
server's per-address limits meet it, not the honest players): a flood of malformed, deep,
oversized and binary WebSocket frames; tables opened as fast as the server allows; big request
bodies; spectators asking to be replayed from the start of a long table; a seat asking for hints
over several connections; connections opened past the address's ceiling; a slow client holding
connections open with a request's headers sent a line at a time; two accounts from one address
seeking each other for rated games in a loop. ``attack`` returns how many requests each made
and how the server answered them.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import Counter
from typing import Any

import httpx
import websockets

ATTACKER = "127.0.0.3"
"""The loopback address the attackers connect from."""
HOG = "127.0.0.4"
"""The address of the attacker that holds connections past the ceiling."""
SLOW = "127.0.0.6"
"""The address of the slow client, who opens connections and never finishes a request."""
SLOW_CONNECTIONS = 1200
"""Connections the slow client tries to hold (more than a default descriptor limit of 1,024)."""
SEEKER = "127.0.0.7"
"""The address of the two accounts that seek each other in a loop."""

REFUSED = (TimeoutError, OSError, websockets.ConnectionClosed, websockets.InvalidHandshake)
"""What a refused or dropped connection raises."""


def _ws(url: str, table_id: str) -> str:
    return f"{url.replace('http', 'ws', 1)}/ws/tables/{table_id}"


async def _connect(url: str, table_id: str, address: str = ATTACKER) -> websockets.ClientConnection:
    return await websockets.connect(_ws(url, table_id), max_size=None, ping_interval=None,
                                    local_addr=(address, 0), open_timeout=5)


async def _table(client: httpx.AsyncClient, url: str, seats: list[dict[str, Any]] | None = None,
                 rules: str = "greek") -> dict[str, Any] | None:
    answer = await client.post(f"{url}/api/tables", json={"rules": rules, "seats": seats})
    return answer.json() if answer.status_code == 201 else None


async def flooder(url: str, table_id: str, stop: float, seen: Counter[str]) -> None:
    """Garbage as fast as the socket takes it: every answer must be an error, never a crash."""
    frames: list[str | bytes] = ["{", "[" * 2000 + "]" * 2000, "x" * 8000, b"\x00\xff" * 10,
                                 json.dumps({"type": "play", "card": "AS", "seq": 10**9}),
                                 json.dumps({"type": "hello", "protocol": 99})]
    while time.monotonic() < stop:
        try:
            async with await _connect(url, table_id) as ws:
                for index in range(400):
                    await ws.send(frames[index % len(frames)])
                    seen["flood frames"] += 1
                    if time.monotonic() > stop:
                        break
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
                    seen[f"flood answered {message.get('code', message['type'])}"] += 1
        except REFUSED:
            seen["flood reconnects"] += 1
            await asyncio.sleep(0.05)


async def table_spammer(url: str, stop: float, seen: Counter[str]) -> None:
    """Open tables (and send big bodies) as fast as the server answers."""
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(timeout=10, transport=transport) as client:
        while time.monotonic() < stop:
            answer = await client.post(f"{url}/api/tables", json={"rules": "greek", "public": True})
            seen[f"tables {answer.status_code}"] += 1
            big = await client.post(f"{url}/api/tables", content=b"{" + b" " * 200_000 + b"}",
                                    headers={"content-type": "application/json"})
            seen[f"big bodies {big.status_code}"] += 1
            if answer.status_code == 429:
                await asyncio.sleep(0.05)


async def replayer(url: str, table_id: str, stop: float, seen: Counter[str]) -> None:
    """Spectators asking for the whole history of a long table, again and again."""
    while time.monotonic() < stop:
        try:
            async with await _connect(url, table_id) as ws:
                await ws.send(json.dumps({"type": "hello", "protocol": 1, "since": 0}))
                for _ in range(2):  # the welcome and the state (the history, when short enough)
                    await asyncio.wait_for(ws.recv(), 2)
                seen["replays"] += 1
        except REFUSED:
            seen["replays refused"] += 1
            await asyncio.sleep(0.05)


async def hint_spammer(url: str, created: dict[str, Any], stop: float, seen: Counter[str]) -> None:
    """A seat against a bot asking for hints over three connections, several times each turn,
    then playing, so that its turns keep coming."""
    table_id, token = created["table"]["id"], created["token"]
    sockets = [await _connect(url, table_id) for _ in range(3)]
    latest: dict[str, Any] = {}

    async def drain(ws: websockets.ClientConnection) -> None:
        nonlocal latest
        try:
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.05))
                if message["type"] == "state" and message["seq"] >= latest.get("seq", -1):
                    latest = message
                elif message["type"] in ("hint", "error"):
                    seen[f"hints answered {message.get('code', 'hint')}"] += 1
        except TimeoutError:
            pass

    try:
        for ws in sockets:
            await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
        while time.monotonic() < stop:
            for ws in sockets:
                await drain(ws)
            view = latest.get("view")
            if view is None or view["phase"] == "round-over":
                await sockets[0].send(json.dumps({"type": "ready"}))
            elif view["phase"] == "playing" and view["turn"] == view["seat"]:
                for ws in sockets * 3:
                    await ws.send(json.dumps({"type": "hint"}))
                # until one hint is answered, wait for it before playing on (a loaded machine's
                # searches are slow)
                while not seen["hints answered hint"] and time.monotonic() < stop:
                    for ws in sockets:
                        await drain(ws)
                for ws in sockets:
                    await drain(ws)
                play = {"type": "play", "card": view["hand"][0], "seq": latest["seq"]}
                await sockets[0].send(json.dumps(play))
    except websockets.ConnectionClosed:
        seen["hint connections closed"] += 1
    finally:
        for ws in sockets:
            await ws.close()


async def connection_hog(url: str, table_id: str, stop: float, seen: Counter[str]) -> None:
    """Open connections past the address's ceiling and hold them."""
    held = []
    try:
        while time.monotonic() < stop:
            try:
                held.append(await _connect(url, table_id, HOG))
                seen["held connections"] += 1
            except REFUSED:
                seen["connections refused"] += 1
                await asyncio.sleep(0.2)
    finally:
        for ws in held:
            await ws.close()


async def slow_client(url: str, stop: float, seen: Counter[str]) -> None:
    """Open up to :data:`SLOW_CONNECTIONS` connections, each sending a request's headers a line
    every few seconds and never the end of them; count how the server answers."""
    host, port = url.split("//", 1)[1].split(":")

    async def hold() -> None:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(host, int(port), local_addr=(SLOW, 0)), 5)
        except REFUSED:
            seen["slow connections refused"] += 1
            return
        seen["slow connections opened"] += 1
        try:
            writer.write(b"GET /api/rules HTTP/1.1\r\nHost: kseri\r\n")
            line = 0
            while time.monotonic() < stop:
                try:
                    answer = await asyncio.wait_for(reader.read(64), 3)
                except TimeoutError:
                    line += 1
                    writer.write(f"X-Slow-{line}: {line}\r\n".encode())
                    continue
                status = answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/") else "closed"
                seen[f"slow connections answered {status}"] += 1
                return
            seen["slow connections held to the end"] += 1
        except REFUSED:
            seen["slow connections dropped"] += 1
        finally:
            writer.close()

    await asyncio.gather(*(hold() for _ in range(SLOW_CONNECTIONS)))


async def seek_looper(url: str, stop: float, seen: Counter[str]) -> None:
    """Two new accounts from one address seek each other for rated games as fast as the server
    answers (issue 19's first finding opened 874 rated tables in 30 s so): count the seeks
    answered by status and the tables their pairings opened (seen paired, or named by a 409
    refusing a seek from a player already in one)."""
    clients = [httpx.AsyncClient(timeout=10, transport=httpx.AsyncHTTPTransport(local_address=SEEKER))
               for _ in range(2)]
    tables: set[str] = set()
    try:
        tokens = []
        suffix = secrets.token_hex(3)
        for index, client in enumerate(clients):
            answer = await client.post(f"{url}/api/account/signup", json={
                "username": f"seeker{index}{suffix}", "password": "correct horse battery", "seats": []})
            if answer.status_code != 201:
                seen[f"seekers' sign-up {answer.status_code}"] += 1
                return
            tokens.append(answer.json()["csrf"])
        while time.monotonic() < stop:
            for client, token in zip(clients, tokens, strict=True):
                answer = await client.post(f"{url}/api/seeks", json={"family": "greek", "clock": 10},
                                           headers={"X-CSRF-Token": token})
                seen[f"seeks {answer.status_code}"] += 1
                if answer.status_code == 201:
                    status = await client.get(f"{url}/api/seeks/{answer.json()['id']}", params={"wait": 0.3})
                    if status.status_code == 200 and status.json()["status"] == "paired":
                        tables.add(status.json()["table"])
                else:
                    if answer.status_code == 409:  # in a game: a pairing the wait above may have missed
                        tables.add(answer.json()["error"]["table"])
                    await asyncio.sleep(0.02)
    finally:
        seen["seek tables opened"] += len(tables)
        for client in clients:
            await client.aclose()


async def attack(url: str, seconds: float, long_table: str) -> Counter[str]:
    """Run every attacker for ``seconds`` against the server at ``url``; ``long_table`` is a
    table with a long history for the replayers. Returns what each did and was answered."""
    seen: Counter[str] = Counter()
    stop = time.monotonic() + seconds
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(timeout=10, transport=transport) as client:
        hinted = await _table(client, url, [{"kind": "human"}, {"kind": "bot", "level": "greedy"}])
        waiting = await _table(client, url)
    assert hinted is not None and waiting is not None, "the attackers could not open their tables"
    await asyncio.gather(
        flooder(url, waiting["table"]["id"], stop, seen),
        flooder(url, long_table, stop, seen),
        table_spammer(url, stop, seen),
        replayer(url, long_table, stop, seen),
        replayer(url, long_table, stop, seen),
        hint_spammer(url, hinted, stop, seen),
        connection_hog(url, waiting["table"]["id"], stop, seen),
        slow_client(url, stop, seen),
        seek_looper(url, stop, seen),
    )
    return seen

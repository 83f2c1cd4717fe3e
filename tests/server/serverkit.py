"""Test tools for the game server: a real ``kseri serve`` in a subprocess, real WebSocket
clients that check every message they receive against the protocol's JSON Schema."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import websockets

SCHEMAS = Path(__file__).resolve().parents[2] / "src" / "kseri" / "schemas"
SERVER_SCHEMA = json.loads((SCHEMAS / "ws-server.schema.json").read_text())
CLIENT_SCHEMA = json.loads((SCHEMAS / "ws-client.schema.json").read_text())
SERVER_MESSAGES = jsonschema.Draft202012Validator(SERVER_SCHEMA)
CLIENT_MESSAGES = jsonschema.Draft202012Validator(CLIENT_SCHEMA)

Json = dict[str, Any]


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    """A ``kseri serve`` process on a loopback port."""

    database_url: str
    options: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, table_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/tables/{table_id}"

    def start(self) -> Server:
        args = [sys.executable, "-m", "kseri", "serve", "--port", str(self.port), "--db", self.database_url]
        settings = {"--bot-delay": "0", "--grace": "30", "--ready-timeout": "30"} | self.options
        for name, value in settings.items():
            args += [name, value]
        self.process = subprocess.Popen(args, env=dict(os.environ), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output = self.process.stdout.read().decode() if self.process.stdout else ""
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{output}")
            try:
                if httpx.get(self.http + "/api/rules", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start within 30 s")

    def kill(self) -> None:
        """kill -9."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def create(self, seats: list[Json], rules: str = "greek", **options: Any) -> Json:
        body = {"rules": rules, "seats": seats, **options}
        answer = httpx.post(self.http + "/api/tables", json=body, timeout=10)
        assert answer.status_code == 201, answer.text
        created: Json = answer.json()
        return created

    def join(self, table_id: str, **body: Any) -> Json:
        answer = httpx.post(f"{self.http}/api/tables/{table_id}/join", json=body, timeout=10)
        assert answer.status_code == 200, answer.text
        joined: Json = answer.json()
        return joined


def human(name: str | None = None) -> Json:
    return {"kind": "human", "name": name} if name else {"kind": "human"}


def bot(level: str = "greedy") -> Json:
    return {"kind": "bot", "level": level}


def first_card(view: Json) -> str:
    card: str = view["hand"][0]
    return card


class Client:
    """A protocol-v1 client; every message it receives must match the server schema."""

    def __init__(self, connection: websockets.ClientConnection, token: str | None) -> None:
        self.connection = connection
        self.token = token
        self.received: list[Json] = []
        self.states: list[Json] = []
        self.seat: int | None = None
        self._readied: set[tuple[int, int]] = set()
        self._played: set[tuple[int, int]] = set()

    @classmethod
    async def connect(cls, server: Server, table_id: str, token: str | None = None,
                      since: int | None = None) -> Client:
        connection = await websockets.connect(server.ws(table_id), max_size=None)
        client = cls(connection, token)
        await client.send({"type": "hello", "protocol": 1, "token": token, "since": since})
        welcome = await client.receive()
        assert welcome["type"] == "welcome", welcome
        client.seat = welcome["seat"]
        return client

    async def send(self, message: Json) -> None:
        CLIENT_MESSAGES.validate(message)
        await self.connection.send(json.dumps(message))

    async def receive(self, timeout: float = 20) -> Json:
        text = await asyncio.wait_for(self.connection.recv(), timeout)
        message: Json = json.loads(text)
        SERVER_MESSAGES.validate(message)
        self.received.append(message)
        if message["type"] == "state":
            if self.states and message["seq"] <= self.states[-1]["seq"]:
                raise AssertionError(f"seq went from {self.states[-1]['seq']} to {message['seq']}")
            self.states.append(message)
        return message

    async def expect(self, kind: str, timeout: float = 20) -> Json:
        """The next message of type ``kind`` (others are kept in :attr:`received`)."""
        while True:
            message = await self.receive(timeout)
            if message["type"] == kind:
                return message

    async def close(self) -> None:
        await self.connection.close()

    async def act(self, state: Json, choose: Callable[[Json], str] = first_card) -> None:
        """Do what a player would on ``state``: get ready between rounds, play on its turn."""
        view, table = state["view"], state["table"]
        if self.seat is None or table["status"] == "finished":
            return
        if view is None or view["phase"] == "round-over":
            key = (state["fairness"]["round"], 0)
            if key not in self._readied:
                self._readied.add(key)
                await self.send({"type": "ready", "cut": f"cut by seat {self.seat}"})
        elif view["turn"] == self.seat:
            key = (view["round"], len(view["plays"]))
            if key not in self._played:
                self._played.add(key)
                await self.send({"type": "play", "card": choose(view), "seq": state["seq"]})

    async def play_until(self, stop: Callable[[Json], bool], choose: Callable[[Json], str] = first_card,
                         timeout: float = 60) -> Json:
        """Play (and take every message) until a state satisfies ``stop``; returns that state."""
        deadline = time.monotonic() + timeout
        if self.states:
            last = self.states[-1]
            if stop(last):
                return last
            await self.act(last, choose)
        while True:
            message = await self.receive(max(0.1, deadline - time.monotonic()))
            if message["type"] == "error":
                raise AssertionError(f"the server refused a play: {message}")
            if message["type"] != "state":
                continue
            if stop(message):
                return message
            await self.act(message, choose)


def finished(state: Json) -> bool:
    status: str = state["table"]["status"]
    return status == "finished"

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
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import websockets
from prometheus_client.parser import text_string_to_metric_families
from websockets.protocol import State

SCHEMAS = Path(__file__).resolve().parents[2] / "src" / "kseri" / "schemas"
SERVER_SCHEMA = json.loads((SCHEMAS / "ws-server.schema.json").read_text())
CLIENT_SCHEMA = json.loads((SCHEMAS / "ws-client.schema.json").read_text())
SERVER_MESSAGES = jsonschema_rs.validator_for(SERVER_SCHEMA)
CLIENT_MESSAGES = jsonschema_rs.validator_for(CLIENT_SCHEMA)

Json = dict[str, Any]

POSTGRES_ENV = "KSERI_TEST_POSTGRES_URL"


def postgres_url() -> str | None:
    """The test PostgreSQL server's URL; in CI its absence is a failure, never a skip."""
    import pytest

    url = os.environ.get(POSTGRES_ENV)
    if not url and os.environ.get("CI") == "true":
        pytest.fail(f"CI must test PostgreSQL: {POSTGRES_ENV} is not set (scripts/test sets it)")
    return url


SCRATCH = Path(tempfile.gettempdir())
"""Where the servers' logs and nginx's folders go: this session's pytest temporary folder once
``tests/conftest.py`` has set it (pytest keeps those of the last three sessions), so that no run
leaves hundreds of files in the system's temporary folder."""


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


LAX = ("tables_per_minute=100000,tables_burst=100000,connections_per_address=100000,"
       "http_connections_per_address=100000,"
       "max_backlog=100000,send_queue=100001")
"""Limits for tests that open many tables and connections from one address (loopback) and
replay whole matches to spectators."""
CLOSE_CHECK = 2.0
"""Seconds between a client's looks at whether the server's close frame has come while it waits
for a message (:meth:`Client._next`)."""
START_TIMEOUT = 120.0
"""Seconds a server may take to answer after it is started (a loaded CI machine starting a
cluster's processes at once takes well over 30)."""


@dataclass
class Server:
    """A ``kseri serve`` process on a loopback port."""

    database_url: str
    options: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    log: Path | None = None
    descriptors: tuple[int, int] | None = None
    """The process's (soft, hard) limit on open descriptors, when not the test runner's."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment variables the process gets besides the test runner's (a skewed clock)."""

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, table_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/tables/{table_id}"

    def start(self) -> Server:
        args = [sys.executable, "-m", "kseri", "serve", "--port", str(self.port), "--db", self.database_url]
        settings = {"--bot-delay": "0", "--grace": "30", "--ready-timeout": "30", "--limits": LAX}
        settings |= self.options
        for name, value in settings.items():
            args += [name, value] if value else [name]  # "": a flag (--no-rated-talk)
        handle, name = tempfile.mkstemp(prefix="kseri-server-", suffix=".log", dir=SCRATCH)
        os.close(handle)
        self.log = Path(name)
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(args, env={**os.environ, **self.env}, stdout=log,
                                            stderr=subprocess.STDOUT,
                                            preexec_fn=self._limit_descriptors if self.descriptors else None)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.output()}")
            try:
                if httpx.get(self.http + "/api/rules", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError(f"the server did not start within {START_TIMEOUT:g} s")

    def _limit_descriptors(self) -> None:
        import resource

        assert self.descriptors is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, self.descriptors)

    def output(self) -> str:
        """What the server has printed so far."""
        return self.log.read_text(errors="replace") if self.log else ""

    def stacks(self, timeout: float = 60) -> str:
        """Where the process is now: every thread's and every asyncio task's stack, as it
        writes them on SIGUSR2 (``server/stacks.py``); "" if it wrote none within ``timeout``."""
        from kseri.server.stacks import END

        assert self.process is not None
        before = self.output()
        self.process.send_signal(signal.SIGUSR2)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            now = self.output()
            if now.count(END) > before.count(END):
                return now[len(before):]
            time.sleep(0.1)
        return ""

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
        answer = post_until_served(self.http + "/api/tables", body)
        assert answer.status_code == 201, answer.text
        created: Json = answer.json()
        return created

    def join(self, table_id: str, **body: Any) -> Json:
        answer = post_until_served(f"{self.http}/api/tables/{table_id}/join", body)
        assert answer.status_code == 200, answer.text
        joined: Json = answer.json()
        return joined


def post_until_served(url: str, body: Json, limit_s: float = 60) -> httpx.Response:
    """POST ``body``, again after each 503 (nothing changed: in a cluster on a busy machine a
    table's lease can move under the request), as a client would after its ``Retry-After``."""
    deadline = time.monotonic() + limit_s
    while True:
        answer = httpx.post(url, json=body, timeout=10)
        if answer.status_code != 503 or time.monotonic() > deadline:
            return answer
        time.sleep(float(answer.headers.get("retry-after", "1")))


def scrape(server: Server) -> dict[str, float]:
    """Every sample of ``/metrics`` by name (histogram buckets by ``name{le}``), checking the
    answer is Prometheus' text format."""
    answer = httpx.get(server.http + "/metrics", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=")
    samples: dict[str, float] = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            le = sample.labels.get("le")
            samples[sample.name if le is None else f"{sample.name}{{{le}}}"] = sample.value
    return samples


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
        self._last_play = (-1, -1)
        self.latencies: list[float] = []
        """Seconds from sending each accepted play to receiving the state that shows it."""
        self._sent_at = 0.0

    @classmethod
    async def connect(cls, server: Server, table_id: str, token: str | None = None,
                      since: int | None = None, source: str | None = None) -> Client:
        """A client said hello (``source``: the loopback address to connect from)."""
        connection = await websockets.connect(server.ws(table_id), max_size=None, ping_interval=None,
                                              local_addr=(source, 0) if source else None)
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
        async with asyncio.timeout(timeout):
            text = await self._next()
        message: Json = json.loads(text)
        SERVER_MESSAGES.validate(message)
        self.received.append(message)
        if message["type"] == "state":
            if self.states and message["seq"] <= self.states[-1]["seq"]:
                raise AssertionError(f"seq went from {self.states[-1]['seq']} to {message['seq']}")
            self.states.append(message)
            event = message["event"]
            if self._sent_at and event and event["kind"] == "play" and event["seat"] == self.seat:
                self.latencies.append(time.perf_counter() - self._sent_at)
                self._sent_at = 0.0
        return message

    async def _next(self) -> str | bytes:
        """The next message. Once the server's close frame has come (and was answered), the
        connection is ended after the close timeout as a browser ends it, whether or not the
        server's side of TCP has closed: ``websockets`` alone would wait for that close in
        ``recv()`` for ever (seen under load: a server socket left open after its close)."""
        while True:
            try:
                return await asyncio.wait_for(self.connection.recv(), CLOSE_CHECK)
            except TimeoutError:
                if self.connection.state is not State.OPEN:
                    await self.connection.close()  # aborts after the close timeout: recv() raises

    async def presence_until(self, stop: Callable[[Json], bool], timeout: float = 20) -> Json:
        """The next ``presence`` message whose table satisfies ``stop`` (others are kept)."""
        while True:
            message = await self.expect("presence", timeout)
            if stop(message["table"]):
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
                self._last_play = key
                self._sent_at = time.perf_counter()
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
            if message["type"] == "error" and message["code"] == "stale":
                # it acted on a state older than one on its way: the newer one decides
                self._played.discard(self._last_play)
                continue
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


class Replay:
    """The match rebuilt by the test from a table's public history once every secret is out:
    the deals from the revealed secrets and cuts, the plays from the events."""

    def __init__(self, rules: Json, revealed: list[Json], table_id: str = "") -> None:
        from kseri.rules import Rules

        self.table_id = table_id
        self.rules = Rules.from_options(rules)
        self.fairness = {entry["round"]: entry for entry in revealed}
        self.match: Any = None

    def apply(self, event: Json) -> None:
        from kseri.engine import Deal, Match
        from kseri.fairness import commitment, deal_seed

        if event["kind"] == "round-start":
            fair = self.fairness[event["round"]]
            seed = deal_seed(fair["secret"], fair["cut"])
            assert commitment(fair["secret"]) == fair["commitment"] and seed == fair["deal_seed"]
            if self.match is None:
                self.match = Match(self.rules, seed=self.table_id,
                                   deal=Deal.shuffle(self.rules, fair["dealer"], seed))
            else:
                assert self.match.dealer + 1 == fair["dealer"] or fair["dealer"] == 0
                self.match.next_round(deal_seed=seed)
        elif event["kind"] == "play":
            assert self.match.turn == event["seat"]
            self.match.play(event["card"])

    def view(self, seat: int | None) -> Json | None:
        """What ``seat`` may know now (``None``: a spectator), as the protocol shows it."""
        from kseri.views import view_to_json

        if self.match is None:
            return None
        data = view_to_json(self.match.view(0 if seat is None else seat))
        if seat is None:
            data.update(seat=None, side=None, hand=[], face_down_seen=[])
        return data


def history(states: list[Json]) -> list[Json]:
    """The events of a complete ``since=0`` stream, checked to be numbered 1, 2, 3…"""
    assert [s["seq"] for s in states] == list(range(1, len(states) + 1))
    return [s["event"] for s in states]


def audit(full: list[Json], clients: list[Client]) -> int:
    """Check every state each client received against what its seat may know at that point:
    exactly the view the engine gives that seat (so no other hand, no stock, no unseen
    face-down card), the same event as everyone else, and no secret before its round ended.
    Returns how many messages were checked."""
    final = full[-1]
    revealed = final["fairness"]["revealed"]
    secrets_by_round = {e["round"]: (e["secret"], e["deal_seed"]) for e in revealed}
    replay = Replay(final["table"]["rules"], revealed)
    events = history(full)
    wanted: dict[int, list[tuple[Client, Json]]] = {}
    for client in clients:
        for message in client.received:
            if message["type"] in ("state", "welcome"):
                text = json.dumps(message)
                shown = {e["round"] for e in message.get("fairness", {"revealed": revealed})["revealed"]}
                if message["type"] == "welcome":
                    shown = set()
                for index, (secret, seed) in secrets_by_round.items():
                    if index not in shown:
                        assert secret not in text and seed not in text, "a secret left before its round ended"
            if message["type"] == "state":
                wanted.setdefault(message["seq"], []).append((client, message))
    checked = 0
    for seq in range(0, len(events) + 1):
        if seq:
            replay.apply(events[seq - 1])
        for client, message in wanted.get(seq, []):
            if message["event"] is not None:
                assert message["event"] == events[seq - 1]
            assert message["view"] == replay.view(client.seat), f"seat {client.seat} at seq {seq}"
            checked += 1
    return checked


def error(answer: httpx.Response, status: int, code: str) -> str:
    """The message of an answer refused with ``status`` and the error ``code``."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert body["error"]["code"] == code, body
    message: str = body["error"]["message"]
    return message

"""Drive an external engine process over the engine protocol, as an :class:`~kseri.agents.Agent`.

:class:`EngineProcess` runs one engine command and exchanges lines with it, never waiting
longer than a timeout; :class:`EngineAgent` plays one seat of one game through it. Any
misbehaviour (a line that is not a message, an illegal card, no answer in time, the process
exiting) raises :class:`EngineError` naming the engine and what it said, and kills the
process; the next game starts it again.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import IO, NoReturn

from kseri.cards import Card, CardError
from kseri.engine import View
from kseri.protocol.messages import (
    ENGINE_MESSAGES,
    MAX_LINE,
    Message,
    ProtocolError,
    decode,
    encode,
    hello_message,
    new_match_message,
    quit_message,
    turn_message,
)
from kseri.views import view_to_json


class EngineError(RuntimeError):
    """An engine broke the protocol, timed out or died; ``engine`` names it, ``said`` quotes it."""

    def __init__(self, engine: str, problem: str, said: str = "", stderr: str = "") -> None:
        self.engine = engine
        self.problem = problem
        self.said = said
        self.stderr = stderr
        text = f"engine {engine!r}: {problem}"
        if said:
            text += f"; it said: {said[:300]!r}"
        if stderr:
            text += f"; its stderr ends: {stderr[-300:]!r}"
        super().__init__(text)


class EngineProcess:
    """One external engine: a command started on demand, spoken to in JSON lines.

    ``handshake_s`` bounds the wait for the answer to ``hello`` (the engine's start-up).
    """

    def __init__(self, name: str, command: Sequence[str], handshake_s: float = 20.0) -> None:
        if not command:
            raise ValueError(f"engine {name!r} has an empty command")
        self.name = name
        self.command = tuple(command)
        self.handshake_s = handshake_s
        self.engine_id: Message | None = None
        """The engine's ``id`` answer, once started."""
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._outgoing: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        self._readers: list[threading.Thread] = []

    @property
    def running(self) -> bool:
        """Whether the process has been started and has not exited."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the engine if it is not running and complete the ``hello``/``id`` handshake."""
        if self.running:
            return
        self.kill()
        try:
            process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", bufsize=1,
            )
        except OSError as error:
            raise EngineError(self.name, f"could not start {' '.join(self.command)!r}: {error}") from None
        self._process = process
        self._lines = queue.Queue()
        self._outgoing = queue.Queue()
        self._stderr = deque(maxlen=20)
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self._readers = [
            threading.Thread(target=_feed, args=(process.stdin, self._outgoing), daemon=True),
            threading.Thread(target=_pump, args=(process.stdout, self._lines), daemon=True),
            threading.Thread(target=_drain, args=(process.stderr, self._stderr), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.send(hello_message())
        deadline = time.monotonic() + self.handshake_s
        while True:
            message = self.receive(deadline, "the answer to hello")
            if message["type"] == "id":
                self.engine_id = message
                return
            if message["type"] != "info":
                kind = message["type"]
                self.fail(f"answered hello with a {kind} message instead of id", encode(message).strip())

    def send(self, message: Message) -> None:
        """Queue one message for the engine (written by a thread: a full pipe never blocks the host)."""
        if self._process is None:
            self.fail("is not running")
        self._outgoing.put(encode(message))

    def receive(self, deadline: float, awaited: str) -> Message:
        """The next message, waiting until ``deadline`` (``time.monotonic``) at most."""
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self.fail(f"timed out waiting for {awaited}")
        if line is None:
            self.fail(f"{self._exit_text()} while the host waited for {awaited}")
        try:
            return decode(line, ENGINE_MESSAGES)
        except ProtocolError as error:
            self.fail(f"sent a malformed line: {error}", line.rstrip("\n"))

    def fail(self, problem: str, said: str = "") -> NoReturn:
        """Kill the process and raise :class:`EngineError` with the stderr it left."""
        self.kill()
        raise EngineError(self.name, problem, said, "\n".join(self._stderr))

    def _exit_text(self) -> str:
        assert self._process is not None
        try:
            code = self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "closed its output"
        return f"exited with status {code}"

    def kill(self) -> None:
        """Stop the process at once (nothing if not running)."""
        process, self._process = self._process, None
        if process is None:
            return
        self._outgoing.put(None)
        if process.poll() is None:
            process.kill()
        process.wait()
        for reader in self._readers:
            reader.join(timeout=1.0)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self) -> None:
        """Ask the engine to quit, then make sure it has."""
        if self.running:
            assert self._process is not None
            with contextlib.suppress(EngineError):
                self.send(quit_message())
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=2.0)
        self.kill()


def _feed(stream: IO[str], outgoing: queue.Queue[str | None]) -> None:
    """Write queued lines to the engine until ``None``."""
    with contextlib.suppress(ValueError, OSError):
        while (line := outgoing.get()) is not None:
            stream.write(line)
            stream.flush()


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    """Move the engine's output lines into ``lines``; ``None`` marks the end."""
    with contextlib.suppress(ValueError, OSError):
        while line := stream.readline(MAX_LINE + 1):
            lines.put(line)
    lines.put(None)


def _drain(stream: IO[str], tail: deque[str]) -> None:
    """Keep the last lines the engine wrote on stderr, for error reports."""
    with contextlib.suppress(ValueError, OSError):
        for line in stream:
            tail.append(line.rstrip("\n"))


class EngineAgent:
    """One seat of one game, played by an external engine.

    The first :meth:`choose` of the game sends ``new_match`` (the view's rules and seat, and
    ``seed``); each call sends ``turn`` and waits ``time_ms`` plus ``grace_ms`` for ``play``,
    keeping the latest ``info`` in :attr:`last_info`. The card must be in the view's hand.
    """

    def __init__(self, process: EngineProcess, seed: int, time_ms: int = 1000, grace_ms: int = 1000) -> None:
        self.name = process.name
        self.process = process
        self.seed = seed
        self.time_ms = time_ms
        self.grace_ms = grace_ms
        self.last_info: Message | None = None
        self._started = False

    def choose(self, view: View) -> Card:
        """Ask the engine for its play on ``view``."""
        process = self.process
        if not self._started:
            process.start()
            process.send(new_match_message(view.rules.options(), view.seat, self.seed))
            self._started = True
        elif not process.running:
            process.fail("is no longer running (it failed earlier in this game)")
        process.send(turn_message(view_to_json(view), self.time_ms))
        deadline = time.monotonic() + (self.time_ms + self.grace_ms) / 1000
        while True:
            awaited = f"a play ({self.time_ms} ms to think + {self.grace_ms} ms grace)"
            message = process.receive(deadline, awaited)
            if message["type"] == "info":
                self.last_info = message
            elif message["type"] == "play":
                break
            else:
                process.fail(f"answered turn with a {message['type']} message", encode(message).strip())
        text = message["card"]
        try:
            card = Card(text)
        except CardError as error:
            process.fail(f"played something that is not a card: {error}", text)
        legal = view.legal_plays()
        for held in legal:
            if held % 52 == card % 52:
                return held
        hand = " ".join(str(c) for c in legal)
        process.fail(f"played {card}, which is not in its hand ({hand}): an illegal play", text)

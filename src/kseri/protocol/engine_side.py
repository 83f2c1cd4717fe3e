"""Serve a bot over the engine protocol on stdin/stdout (``kseri engine --level LEVEL``).

>>> import io
>>> host = io.StringIO('{"type": "hello", "protocol": 1}\\n{"type": "quit"}\\n')
>>> out = io.StringIO()
>>> serve(lambda seed: make_agent("greedy", seed=seed), "kseri greedy", host, out)
>>> out.getvalue()
'{"type": "id", "name": "kseri greedy", "author": "kseri"}\\n'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from kseri.agents.base import Agent, make_agent
from kseri.protocol.messages import (
    HOST_MESSAGES,
    PROTOCOL_VERSION,
    Message,
    ProtocolError,
    decode,
    encode,
    error_message,
    id_message,
    play_message,
)
from kseri.rules import Rules
from kseri.views import view_from_json

AgentMaker = Callable[[int | None], Agent]
"""Builds the served bot from a seed (``None``: unseeded)."""


def serve(make: AgentMaker, name: str, stdin: TextIO, stdout: TextIO, author: str = "kseri") -> None:
    """Answer host messages from ``stdin`` on ``stdout`` until ``quit`` or end of input.

    A message the engine cannot use is answered with an ``error`` line and otherwise ignored.
    ``new_match`` rebuilds the bot with the match's seed, so a seeded host repeats exactly.
    """
    agent = make(None)

    def send(message: Message) -> None:
        stdout.write(encode(message))
        stdout.flush()

    for line in stdin:
        if not line.strip():
            continue
        try:
            message = decode(line, HOST_MESSAGES)
        except ProtocolError as error:
            send(error_message(str(error)))
            continue
        kind = message["type"]
        if kind == "quit":
            return
        if kind == "hello":
            if message["protocol"] != PROTOCOL_VERSION:
                version = message["protocol"]
                send(error_message(f"unsupported protocol version {version}; it speaks {PROTOCOL_VERSION}"))
            else:
                send(id_message(name, author))
        elif kind == "new_match":
            try:
                Rules.from_options(message["rules"])
            except (ValueError, TypeError) as error:
                send(error_message(f"bad rules in new_match: {error}"))
                continue
            agent = make(message["seed"])
        else:  # turn
            try:
                view = view_from_json(message["view"])
            except (ValueError, TypeError, KeyError) as error:
                send(error_message(f"bad view in turn: {type(error).__name__}: {error}"))
                continue
            if view.turn != view.seat:
                send(error_message(f"the view is seat {view.seat}'s, but it is seat {view.turn}'s turn"))
                continue
            send(play_message(str(agent.choose(view))))


def serve_level(level: str, seed: int | None, stdin: TextIO, stdout: TextIO) -> None:
    """Serve the built-in bot ``level`` (checked first: an unknown level raises ``ValueError``)."""
    make_agent(level, seed=seed)

    def make(match_seed: int | None) -> Agent:
        return make_agent(level, seed=seed if match_seed is None else match_seed)

    serve(make, f"kseri {level}", stdin, stdout)

"""The messages of the engine protocol (version 1): one JSON object per line.

The host sends ``hello``, ``new_match``, ``turn`` and ``quit``; the engine answers ``id``,
``play``, and may send ``info`` and ``error`` lines. :func:`decode` checks a line against the
messages one side may receive and raises :class:`ProtocolError` naming what is wrong.

>>> line = encode(play_message("TD"))
>>> line
'{"type": "play", "card": "TD"}\\n'
>>> decode(line, ENGINE_MESSAGES)
{'type': 'play', 'card': 'TD'}
>>> decode('{"type": "play"}', ENGINE_MESSAGES)
Traceback (most recent call last):
...
kseri.protocol.messages.ProtocolError: play message lacks the field 'card'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

PROTOCOL_VERSION: Final = 1
"""The protocol version this code speaks; ``hello`` carries it and an engine refuses others."""

Message = dict[str, Any]
"""A decoded message: a JSON object with a ``type``."""

HOST_MESSAGES: Final[Mapping[str, Mapping[str, type]]] = {
    "hello": {"protocol": int},
    "new_match": {"rules": dict, "seat": int, "seed": int},
    "turn": {"view": dict, "time_ms": int},
    "quit": {},
}
"""What a host may send, with each message's required fields and their JSON types."""

ENGINE_MESSAGES: Final[Mapping[str, Mapping[str, type]]] = {
    "id": {"name": str, "author": str},
    "play": {"card": str},
    "info": {},
    "error": {"message": str},
}
"""What an engine may send, with each message's required fields and their JSON types."""

MAX_LINE: Final = 1 << 20
"""The longest line either side has to accept (1 MiB)."""


class ProtocolError(ValueError):
    """A line that is not a valid message for the side reading it; the text says why."""


def encode(message: Message) -> str:
    """One message as a line of JSON (ASCII, non-ASCII text escaped; ending with a newline)."""
    return json.dumps(message) + "\n"


def decode(line: str, allowed: Mapping[str, Mapping[str, type]]) -> Message:
    """Parse and check one line against ``allowed`` (:data:`HOST_MESSAGES` or :data:`ENGINE_MESSAGES`)."""
    text = line.strip()
    if len(text) > MAX_LINE:
        raise ProtocolError(f"line of {len(text)} characters is longer than {MAX_LINE}")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"not JSON ({error.msg} at column {error.colno}): {_clip(text)!r}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object: {_clip(text)!r}")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in allowed:
        raise ProtocolError(f"unknown message type {kind!r}; expected one of: {', '.join(allowed)}")
    for field, expected in allowed[kind].items():
        if field not in message:
            raise ProtocolError(f"{kind} message lacks the field {field!r}")
        value = message[field]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ProtocolError(
                f"{kind} message field {field!r} must be a {_json_type(expected)}, not {value!r}"
            )
    return message


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _json_type(kind: type) -> str:
    return {int: "number", str: "string", dict: "object", list: "array"}.get(kind, kind.__name__)


def hello_message() -> Message:
    """Host → engine: the first message; the engine answers ``id``."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION}


def id_message(name: str, author: str) -> Message:
    """Engine → host: the answer to ``hello``."""
    return {"type": "id", "name": name, "author": author}


def new_match_message(rules: dict[str, Any], seat: int, seed: int) -> Message:
    """Host → engine: a match starts under ``rules`` (``Rules.options()``); the engine plays
    ``seat`` and should seed any randomness from ``seed`` (so runs repeat). No answer."""
    return {"type": "new_match", "rules": rules, "seat": seat, "seed": seed}


def turn_message(view: dict[str, Any], time_ms: int) -> Message:
    """Host → engine: the engine's seat is to play; ``view`` is ``view_to_json``; the engine
    answers ``play`` within ``time_ms`` milliseconds."""
    return {"type": "turn", "view": view, "time_ms": time_ms}


def play_message(card: str) -> Message:
    """Engine → host: the card played (canonical ASCII, e.g. ``TD``)."""
    return {"type": "play", "card": card}


def info_message(**fields: Any) -> Message:
    """Engine → host, optional, before ``play``: search information (``depth``, ``nodes``, ``value``, ...)."""
    return {"type": "info", **fields}


def error_message(text: str) -> Message:
    """Engine → host: a host message the engine could not use (the engine carries on)."""
    return {"type": "error", "message": text}


def quit_message() -> Message:
    """Host → engine: exit now (closing stdin means the same)."""
    return {"type": "quit"}

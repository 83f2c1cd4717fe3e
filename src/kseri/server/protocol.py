"""The WebSocket messages (protocol v1, and v2's ``delta``): the client's, parsed strictly; the
server's, typed and encoded here (:func:`dumps`, the wire's one JSON encoder).

The JSON Schemas in ``kseri/schemas/`` describe the same messages (tests hold the two together).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

PROTOCOL = 1
"""The protocol version of the engine protocol's clients and the default (full ``state``
messages)."""
LEAN = 2
"""Protocol v2: one full ``state``, then ``delta`` messages (``server/delta.py``)."""
PROTOCOLS = (PROTOCOL, LEAN)
"""The protocol versions this server speaks (asked for in ``hello``)."""

ERROR_CODES = (
    "bad-json", "bad-message", "unsupported-protocol", "bad-token", "not-seated",
    "not-your-turn", "not-in-hand", "stale", "not-playing", "too-large", "throttled",
    "hints-off", "no-such-table", "server-error", "too-many-connections", "busy",
    "unknown-phrase", "talk-off",
)
"""Every ``code`` an ``error`` message may carry."""


class ProtocolError(Exception):
    """A refused request: sent to the client as an ``error`` message; nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, Any]:
        """The ``error`` message, as JSON-ready values."""
        return {"type": "error", "code": self.code, "message": self.message}

    def to_message(self) -> Error:
        """The ``error`` message."""
        return Error(self.code, self.message)


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


Token = Annotated[str, Field(max_length=200)]


class Hello(_Message):
    """Join a table's stream, as a seat (with its token) or as a spectator."""

    type: Literal["hello"]
    protocol: int
    token: Token | None = None
    since: Annotated[int, Field(ge=0)] | None = None
    tokens: Annotated[list[Token], Field(min_length=1, max_length=6)] | None = None
    """Pass and play: the tokens of every seat this one device holds (instead of ``token``)."""


class Play(_Message):
    """Play a card, having seen state ``seq``."""

    type: Literal["play"]
    card: Annotated[str, Field(min_length=1, max_length=8)]
    seq: Annotated[int, Field(ge=0)]


class Ready(_Message):
    """Ready for the next deal; the cutting seat may add entropy."""

    type: Literal["ready"]
    cut: Annotated[str, Field(max_length=256)] | None = None


class Hint(_Message):
    """Ask for each legal play's value (casual tables)."""

    type: Literal["hint"]


class Say(_Message):
    """Say a table-talk phrase, by its id (``server/talk.py``: ``PHRASES``)."""

    type: Literal["say"]
    phrase: Annotated[str, Field(min_length=1, max_length=32)]


class Ping(_Message):
    """Keep-alive."""

    type: Literal["ping"]


class Show(_Message):
    """Pass and play: show the view of one of the seats this connection holds (after the
    hand-over), or of none (``null``: the hand hidden while the device is passed on)."""

    type: Literal["show"]
    seat: Annotated[int, Field(ge=0, le=5)] | None


class Sync(_Message):
    """Protocol v2: send the full state again (a client that lost track of the deltas)."""

    type: Literal["sync"]


Request = Hello | Play | Ready | Hint | Say | Ping | Show | Sync
"""Every message a client may send."""
ClientMessage = Annotated[Request, Field(discriminator="type")]
_client_message: TypeAdapter[Request] = TypeAdapter(ClientMessage)


def parse_client_message(data: object) -> Request:
    """Validate a decoded client message; raises :class:`ProtocolError` (``bad-message``)."""
    try:
        return _client_message.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise ProtocolError("bad-message", f"{where}: {first['msg']}") from None


# -- the server's messages ---------------------------------------------------------------------

def dumps(data: Any) -> str:
    """Compact JSON for every message the server sends (and the store's ``data`` and ``rules``
    columns): orjson, since the server's hottest path encodes a state message per connection
    and play; parts already encoded are spliced in as ``orjson.Fragment``."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


JSON = Any
"""A JSON-ready value (or an ``orjson.Fragment`` of JSON text already encoded)."""


@dataclass(frozen=True, slots=True)
class Welcome:
    """Hello answered: the table as it is and the seat this connection speaks for."""

    table: JSON
    seat: int | None
    talk: bool
    """Whether the table's players may say phrases (off in rated games when the server says so)."""
    protocol: int = PROTOCOL

    def encode(self) -> str:
        return dumps({"type": "welcome", "protocol": self.protocol, "table": self.table, "seat": self.seat,
                      "talk": self.talk})


@dataclass(frozen=True, slots=True)
class State:
    """One moment of a table as one connection may see it, after ``event``."""

    seq: int
    table: JSON
    view: JSON
    event: JSON
    fairness: JSON
    turn_deadline: dict[str, float] | None
    history: JSON

    def encode(self) -> str:
        return dumps({"type": "state", "seq": self.seq, "table": self.table, "view": self.view,
                      "event": self.event, "fairness": self.fairness, "turn_deadline": self.turn_deadline,
                      "history": self.history})


@dataclass(frozen=True, slots=True)
class Delta:
    """Protocol v2: what changed from state ``base`` to state ``seq`` (``server/delta.py``)."""

    seq: int
    base: int
    event: JSON
    changes: JSON

    def encode(self) -> str:
        return dumps({"type": "delta", "seq": self.seq, "base": self.base, "event": self.event,
                      "changes": self.changes})


@dataclass(frozen=True, slots=True)
class Shown:
    """Pass and play: whose view this connection is sent from now on (a full ``state`` follows)."""

    seat: int | None

    def encode(self) -> str:
        return dumps({"type": "shown", "seat": self.seat})


@dataclass(frozen=True, slots=True)
class Presence:
    """Who is connected now."""

    table: JSON

    def encode(self) -> str:
        return dumps({"type": "presence", "table": self.table})


@dataclass(frozen=True, slots=True)
class HintValues:
    """The value of each legal play (best first), answering a ``hint``."""

    values: tuple[tuple[str, float], ...]
    """``(card, value)`` pairs, best first."""

    def encode(self) -> str:
        values = [{"card": card, "value": value} for card, value in self.values]
        return dumps({"type": "hint", "values": values, "best": values[0]["card"]})


@dataclass(frozen=True, slots=True)
class Said:
    """A seat said a table-talk phrase (its id; each client shows it in its own language)."""

    seat: int
    phrase: str

    def encode(self) -> str:
        return dumps({"type": "said", "seat": self.seat, "phrase": self.phrase})


@dataclass(frozen=True, slots=True)
class Pong:
    """Keep-alive answered."""

    def encode(self) -> str:
        return '{"type":"pong"}'


@dataclass(frozen=True, slots=True)
class Error:
    """A request refused (see :class:`ProtocolError`); nothing changed."""

    code: str
    message: str

    def encode(self) -> str:
        return dumps({"type": "error", "code": self.code, "message": self.message})


ServerMessage = Welcome | State | Delta | Shown | Presence | HintValues | Said | Pong | Error
"""Every message the server sends on a table's WebSocket."""

"""Protocol v1's WebSocket messages: the client's, parsed strictly; the server's, typed and
encoded here (:func:`dumps`, the wire's one JSON encoder).

The JSON Schemas in ``kseri/schemas/`` describe the same messages (tests hold the two together).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

PROTOCOL = 1
"""The protocol version this server speaks."""

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


class Hello(_Message):
    """Join a table's stream, as a seat (with its token) or as a spectator."""

    type: Literal["hello"]
    protocol: int
    token: Annotated[str, Field(max_length=200)] | None = None
    since: Annotated[int, Field(ge=0)] | None = None


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


ClientMessage = Annotated[Hello | Play | Ready | Hint | Say | Ping, Field(discriminator="type")]
_client_message: TypeAdapter[Hello | Play | Ready | Hint | Say | Ping] = TypeAdapter(ClientMessage)


def parse_client_message(data: object) -> Hello | Play | Ready | Hint | Say | Ping:
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

    def encode(self) -> str:
        return dumps({"type": "welcome", "protocol": PROTOCOL, "table": self.table, "seat": self.seat,
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


ServerMessage = Welcome | State | Presence | HintValues | Said | Pong | Error
"""Every message the server sends on a table's WebSocket."""

"""Protocol v1's WebSocket messages: the client's, parsed strictly; the server's, built here.

The JSON Schemas in ``kseri/schemas/`` describe the same messages (tests hold the two together).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

PROTOCOL = 1
"""The protocol version this server speaks."""

ERROR_CODES = (
    "bad-json", "bad-message", "unsupported-protocol", "bad-token", "not-seated",
    "not-your-turn", "not-in-hand", "stale", "not-playing", "too-large", "throttled",
    "hints-off", "no-such-table", "server-error", "too-many-connections", "busy",
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
        """The ``error`` message."""
        return {"type": "error", "code": self.code, "message": self.message}


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


class Ping(_Message):
    """Keep-alive."""

    type: Literal["ping"]


ClientMessage = Annotated[Hello | Play | Ready | Hint | Ping, Field(discriminator="type")]
_client_message: TypeAdapter[Hello | Play | Ready | Hint | Ping] = TypeAdapter(ClientMessage)


def parse_client_message(data: object) -> Hello | Play | Ready | Hint | Ping:
    """Validate a decoded client message; raises :class:`ProtocolError` (``bad-message``)."""
    try:
        return _client_message.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise ProtocolError("bad-message", f"{where}: {first['msg']}") from None

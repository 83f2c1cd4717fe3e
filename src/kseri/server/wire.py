"""One socket loop under every connection to a table: served here (a WebSocket) or relayed
from another process of a cluster (``server/relay.py``). Each raw frame is checked (the
connection's allowance, text, size, JSON) and handed to the table; a refusal is answered with
an ``error`` message and changes nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from kseri.server.audience import Connection
from kseri.server.protocol import Hello, Play, ProtocolError, Ready, parse_client_message
from kseri.server.room import GameTable
from kseri.server.settings import ServerSettings

Receive = Callable[[], Awaitable[Mapping[str, Any] | None]]
"""The next raw frame of a connection (an ASGI ``websocket.receive`` message), ``None`` once
the peer is gone."""


async def serve(table: GameTable, connection: Connection, receive: Receive, settings: ServerSettings) -> None:
    """Answer ``connection``'s frames until its peer goes, or the server drops it (its handler
    cancelled: :attr:`Connection.on_drop`); the caller then has the table forget it."""
    try:
        while (frame := await receive()) is not None:
            try:
                await answer(table, connection, frame, settings)
            except ProtocolError as error:
                connection.send(error.to_message())
    except asyncio.CancelledError:
        if not connection.dropped:
            raise


async def answer(table: GameTable, connection: Connection, frame: Mapping[str, Any],
                 settings: ServerSettings) -> None:
    """Check one raw WebSocket frame and hand its message to the table (refused messages and
    pings, not accepted moves, spend the connection's allowance)."""
    limits = settings.limits
    if not connection.bucket.take():
        connection.throttled += 1
        if connection.throttled > limits.burst:
            connection.drop("flooding: messages kept coming after they were throttled")
        raise ProtocolError("throttled", f"too many messages: at most {limits.rate:g} a second")
    connection.throttled = 0
    text = frame.get("text")
    if text is None:
        raise ProtocolError("bad-message", "send JSON text frames, not binary ones")
    if len(text.encode()) > limits.max_message:
        raise ProtocolError("too-large", f"messages are limited to {limits.max_message} bytes")
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ProtocolError("bad-json", f"not JSON: {error}") from None
    except RecursionError:
        raise ProtocolError("bad-json", "not JSON this server reads: nested too deeply") from None
    message = parse_client_message(data)
    await table.handle(connection, message)
    if isinstance(message, Hello | Play | Ready):
        connection.bucket.refund()  # accepted moves are paced by the game itself

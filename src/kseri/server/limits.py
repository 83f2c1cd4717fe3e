"""Every bound the server puts on what one client may ask of it, in one place.

A public server answers anyone: each request, message and connection is bounded here, and each
refusal names the limit. The numbers are :class:`Limits`' defaults (``docs/server.md`` lists
them); the classes below enforce them: token buckets (per connection, per address, per seat),
connection counters, and two ASGI middlewares (request body size, security headers).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's bounds; the defaults suit a public server on one machine."""

    max_body: int = 64 * 1024
    """Largest HTTP request body, in bytes."""
    max_message: int = 4096
    """Largest WebSocket message accepted, in bytes."""
    rate: float = 20.0
    """Messages per second a connection may send on average (token bucket)."""
    burst: float = 40.0
    """Messages a connection may send at once (the bucket's size)."""
    tables_per_minute: float = 20.0
    """Tables one address may open a minute, on average."""
    tables_burst: float = 10.0
    """Tables one address may open at once."""
    max_live_tables: int = 5000
    """Tables in play (or waiting) at once; past it new tables are refused for a while."""
    finished_kept: float = 5.0
    """Seconds a finished table nobody watches stays in memory; then it is let go, and loads
    again from the database when asked for (a server holding every finished match pays for
    it in memory and in ever longer pauses of the garbage collector)."""
    connections_per_address: int = 64
    """Open WebSockets from one address."""
    http_connections_per_address: int = 64
    """Open HTTP connections from one address, counted before a request is read (a WebSocket
    leaves this count once upgraded); a trusted proxy (``--trusted-proxy``) is exempt."""
    header_timeout: float = 10.0
    """Seconds a request's headers may take to arrive in full."""
    connections_per_seat: int = 4
    """Open WebSockets speaking for one seat (its token)."""
    hints_per_minute: float = 30.0
    """Hint requests one seat may make a minute, over all its connections (answers for a turn
    already computed are free)."""
    talk_per_minute: float = 6.0
    """Table-talk phrases one seat may say a minute, over all its connections (half as many at
    once)."""
    max_backlog: int = 200
    """The most missed states a reconnecting client is sent one by one; further behind, it gets
    the latest state alone."""
    waiting_expiry: float = 1800.0
    """Seconds a table nobody joined waits for players before it is removed."""
    lobby_page: int = 50
    """The most tables one lobby page lists."""
    send_queue: int = 256
    """Messages queued for a connection that does not read; past it the connection is closed
    (1008) and its seat counts as away."""
    search_queue: int = 8
    """Hint requests waiting for the search workers; past it hints answer ``busy``."""
    signups_per_hour: int = 5
    """Accounts one address may create an hour."""
    failed_signins: int = 10
    """Failed sign-ins an account may see in 15 minutes (an address: five times as many)."""
    seeks_per_minute: float = 6.0
    """Quick-game seeks one account may make a minute, on average and at most this many at once
    (an address: five times as many); each seek also spends one of its address's tables
    (``tables_per_minute``), since a seek may open one."""

    def __post_init__(self) -> None:
        if self.send_queue <= self.max_backlog:
            raise ValueError(f"send_queue ({self.send_queue}) must exceed max_backlog ({self.max_backlog}): "
                             "a reconnecting client's backlog is queued at once")

    @classmethod
    def from_spec(cls, spec: str) -> Limits:
        """Defaults with some bounds changed: ``tables_per_minute=100,max_body=1024``.

        >>> Limits.from_spec("tables_per_minute=100").tables_per_minute
        100.0
        >>> Limits.from_spec("tables=1")
        Traceback (most recent call last):
        ...
        ValueError: unknown limit 'tables'; the limits are: max_body, max_message, ...
        """
        kinds = {f.name: f.type for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            name, _, text = part.partition("=")
            name = name.strip().replace("-", "_")
            if name not in kinds:
                shown = ", ".join(list(kinds)[:2])
                raise ValueError(f"unknown limit {name!r}; the limits are: {shown}, ... (docs/server.md)")
            convert = int if kinds[name] == "int" else float
            try:
                values[name] = convert(text)
            except ValueError:
                raise ValueError(f"limit {name} must be a number, not {text!r}") from None
            if values[name] <= 0:
                raise ValueError(f"limit {name} must be positive, not {text!r}")
        return cls(**values)


class TokenBucket:
    """An allowance: ``rate`` a second, at most ``burst`` at once."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        """Spend one token if there is one."""
        self._refill()
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def refund(self) -> None:
        """Give back the token of a request that turned out to be a legitimate move."""
        self.tokens = min(self.burst, self.tokens + 1)

    def wait(self) -> float:
        """Seconds until a token is free."""
        self._refill()
        return max(0.0, (1 - self.tokens) / self.rate)

    def full(self) -> bool:
        """Whether the bucket has refilled completely (nothing to remember)."""
        self._refill()
        return self.tokens >= self.burst


class KeyedBuckets:
    """One :class:`TokenBucket` per key (an address, a seat); full buckets are forgotten, so
    memory follows the number of recently active keys."""

    def __init__(self, rate: float, burst: float, *, sweep_every: int = 1024) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, TokenBucket] = {}
        self._sweep_every = sweep_every

    def take(self, key: str) -> bool:
        """Spend one of ``key``'s tokens if it has one."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._sweep_every:
                self._buckets = {k: b for k, b in self._buckets.items() if not b.full()}
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst)
        return bucket.take()

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may ask again."""
        bucket = self._buckets.get(key)
        return 0.0 if bucket is None else bucket.wait()


class Counter:
    """How many of something each key holds, with a ceiling."""

    def __init__(self, ceiling: int) -> None:
        self.ceiling = ceiling
        self._counts: dict[str, int] = {}

    def acquire(self, key: str) -> bool:
        """Count one more for ``key`` unless it is at the ceiling."""
        count = self._counts.get(key, 0)
        if count >= self.ceiling:
            return False
        self._counts[key] = count + 1
        return True

    def release(self, key: str) -> None:
        """Count one fewer for ``key``."""
        count = self._counts.get(key, 0) - 1
        if count > 0:
            self._counts[key] = count
        else:
            self._counts.pop(key, None)

    def force(self, key: str) -> None:
        """Count one more for ``key``, ceiling or not (another counter allowed it)."""
        self._counts[key] = self._counts.get(key, 0) + 1

    def counts(self) -> dict[str, int]:
        """Each key's count (a copy)."""
        return dict(self._counts)


def client_address(scope: Scope) -> str:
    """The peer's address as the server sees it (a proxy's, behind one)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def _json_error(status: int, code: str, message: str) -> tuple[Message, Message]:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    start = {"type": "http.response.start", "status": status, "headers": headers}
    return start, {"type": "http.response.body", "body": body}


class BodyLimit:
    """Refuse HTTP request bodies over ``limit`` bytes with a JSON 413, whether announced by
    ``Content-Length`` or streamed in chunks, reading no more than ``limit`` bytes of them."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await self._refuse(send)
                return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.limit:
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        for message in _json_error(413, "too-large", f"request bodies are limited to {self.limit} bytes"):
            await send(message)


SECURITY_HEADERS = (
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
     b"img-src 'self' data:; connect-src 'self'; media-src 'self' data: blob:; object-src 'none'; "
     b"base-uri 'none'; frame-ancestors 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
"""Sent with every HTTP response: the page loads only its own files, is never framed, and
leaks no address (invite links hold table ids). ``'wasm-unsafe-eval'`` lets it compile
WebAssembly (Pyodide, the offline engine: ``kseri.offline``), and no JavaScript from text."""

_DOCS_POLICY = (b"content-security-policy",
                b"default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
                b"style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: "
                b"https://fastapi.tiangolo.com; frame-ancestors 'none'")
"""The interactive API docs (``/docs``, ``/redoc``) load Swagger's files from a CDN."""


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = scope.get("path", "") in ("/docs", "/redoc")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0] not in dict(SECURITY_HEADERS)]
                headers.extend(SECURITY_HEADERS)
                if docs:
                    headers = [h for h in headers if h[0] != b"content-security-policy"] + [_DOCS_POLICY]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


def origin_allowed(headers: dict[str, str], allowed: tuple[str, ...]) -> bool:
    """Whether a WebSocket upgrade's ``Origin`` may connect: none (not a browser), the origin
    the server is reached at (its ``Host``), or one of ``allowed`` (``*``: any)."""
    origin = headers.get("origin")
    if origin is None or "*" in allowed or origin in allowed:
        return True
    host = headers.get("host", "")
    scheme, _, rest = origin.partition("://")
    return scheme in ("http", "https") and rest == host

"""The server's guard below HTTP: what a connection may hold before it has sent a request.

A client that opens connections and sends its request's headers a line at a time never reaches
the application, so the application's limits cannot see it: about 1,100 such connections from
one address held every file descriptor of a server at its default limit of 1,024, and every
honest request failed while they lasted. :class:`ConnectionGuard` stops that where the bytes
arrive, in uvicorn's HTTP protocol (:meth:`ConnectionGuard.protocol`):

- a request's headers must be complete within ``Limits.header_timeout`` seconds of its first
  byte (or of the connection's opening), else the connection is answered 408 and closed;
- one address may hold ``Limits.http_connections_per_address`` HTTP connections at once; the
  next is answered 503 and closed (a WebSocket leaves this count once upgraded: the
  application bounds those, ``Limits.connections_per_address``); the trusted proxies
  (``kseri serve --trusted-proxy``) are exempt, since all their clients share their address;
- :func:`raise_descriptor_limit` lifts the soft descriptor limit to the hard one at start-up,
  and a process short of descriptors says so (``kseri_descriptors_open`` beside
  ``kseri_descriptor_limit``; each second with fewer than :data:`SPARE_DESCRIPTORS` free is
  counted in ``kseri_descriptors_exhausted_total`` and logged), as is a failed ``accept`` on
  an asyncio loop (``kseri_accept_failures_total``; uvloop drops those without a word).

Each refusal is counted in ``/metrics`` (``kseri_http_refused_total{reason}``) and logged
once a minute per address, so an operator sees an attack as it happens (``docs/server.md``,
Behind a proxy).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import socket
import time
from collections import Counter
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kseri.server.limits import Limits
from kseri.server.metrics import Metrics
from kseri.server.stacks import dump_on_signal

log = logging.getLogger("kseri.server")

WARN_EVERY = 60.0
"""Seconds between two log lines about the same address (or about failed accepts)."""
DESCRIPTOR_CEILING = 1 << 20
"""The most descriptors :func:`raise_descriptor_limit` asks for, whatever the hard limit."""
SPARE_DESCRIPTORS = 16
"""Free descriptors under which the process counts itself out of them."""
ACCEPT_FAILED = "socket.accept() out of system resource"
"""The message asyncio's event loop reports a failed accept with."""


def _answer(status: str, reason: str) -> bytes:
    body = reason.encode() + b"\n"
    return (f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


TOO_MANY = _answer("503 Service Unavailable", "too many connections from your address")
TOO_SLOW = _answer("408 Request Timeout", "the request's headers took too long")


class ConnectionGuard:
    """Counts each address's open HTTP connections and times each request's headers."""

    def __init__(self, limits: Limits, metrics: Metrics, trusted: tuple[str, ...] = ()) -> None:
        self.per_address = limits.http_connections_per_address
        self.header_timeout = limits.header_timeout
        self.metrics = metrics
        self.trusted = frozenset(trusted)
        self.open: Counter[str] = Counter()
        """Open HTTP connections by address (trusted proxies not counted)."""
        self._warned: dict[str, float] = {}
        metrics.descriptors_open.set_function(open_descriptors)
        metrics.descriptor_limit.set_function(descriptor_limit)

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; ``False`` (nothing counted) when it holds
        its ceiling already."""
        if address in self.trusted:
            return True
        if self.open[address] >= self.per_address:
            self.refuse(address, "per-address",
                        f"{self.open[address]} HTTP connections open (http_connections_per_address)")
            return False
        self.open[address] += 1
        return True

    def release(self, address: str) -> None:
        """Forget one connection of ``address`` (closed, or upgraded to a WebSocket)."""
        if address in self.trusted:
            return
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]

    def refuse(self, address: str, reason: str, why: str) -> None:
        """Count a refused connection and log it (once a minute per address and reason)."""
        self.metrics.http_refused.labels(reason).inc()
        now, key = time.monotonic(), f"{reason} {address}"
        if now - self._warned.get(key, -WARN_EVERY) >= WARN_EVERY:
            self._warned[key] = now
            if len(self._warned) > 10_000:  # an attack from many addresses: keep the recent ones
                self._warned = {key: at for key, at in self._warned.items() if now - at < WARN_EVERY}
            log.warning("refusing HTTP connections from %s: %s", address, why)

    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler: counts and logs failed accepts, passes the rest on."""
        if context.get("message") == ACCEPT_FAILED:
            self.metrics.accept_failures.inc()
            now = time.monotonic()
            if now - self._warned.get("", -WARN_EVERY) >= WARN_EVERY:
                self._warned[""] = now
                log.warning("cannot accept connections: %s (%d of %d descriptors open)",
                            context.get("exception"), open_descriptors(), descriptor_limit())
            return
        loop.default_exception_handler(context)

    async def watch_descriptors(self) -> None:
        """Log, once a minute at most, while fewer than :data:`SPARE_DESCRIPTORS` descriptors
        are free: uvloop (uvicorn's default loop) drops connections it cannot accept without
        a word, so the count of open descriptors is how an operator sees it happen."""
        while True:
            await asyncio.sleep(1.0)
            open_now, limit = open_descriptors(), descriptor_limit()
            if limit - open_now < SPARE_DESCRIPTORS:
                self.metrics.descriptors_exhausted.inc()
                now = time.monotonic()
                if now - self._warned.get("", -WARN_EVERY) >= WARN_EVERY:
                    self._warned[""] = now
                    log.warning("%d of %d descriptors open: new connections are refused by the "
                                "system (raise the limit, or see who holds them: kseri_http_* metrics)",
                                open_now, limit)

    def protocol(self) -> type[HttpToolsProtocol]:
        """uvicorn's HTTP protocol (``uvicorn.Config(http=...)``) under this guard."""
        guard = self

        class GuardedProtocol(HttpToolsProtocol):
            """uvicorn's httptools protocol, with each address counted and headers timed."""

            address: str | None = None
            header_timer: asyncio.TimerHandle | None = None

            def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
                super().connection_made(transport)
                address = self.client[0] if self.client else "unknown"
                if not guard.admit(address):
                    transport.write(TOO_MANY)
                    transport.close()
                    return
                self.address = address
                self.await_headers()

            def on_message_begin(self) -> None:
                super().on_message_begin()
                self.await_headers()

            def on_headers_complete(self) -> None:
                self.stop_waiting()
                super().on_headers_complete()

            def await_headers(self) -> None:
                if self.header_timer is None:
                    self.header_timer = self.loop.call_later(guard.header_timeout, self.headers_too_slow)

            def stop_waiting(self) -> None:
                if self.header_timer is not None:
                    self.header_timer.cancel()
                    self.header_timer = None

            def headers_too_slow(self) -> None:
                self.header_timer = None
                guard.refuse(self.address or "unknown", "header-timeout",
                             f"a request's headers took over {guard.header_timeout:g} s (header_timeout)")
                if not self.transport.is_closing():
                    self.transport.write(TOO_SLOW)
                    self.transport.close()

            def handle_websocket_upgrade(self) -> None:
                self.leave()
                super().handle_websocket_upgrade()

            def connection_lost(self, exc: Exception | None) -> None:
                self.leave()
                super().connection_lost(exc)

            def leave(self) -> None:
                self.stop_waiting()
                if self.address is not None:
                    guard.release(self.address)
                    self.address = None

        return GuardedProtocol


class GuardedServer(uvicorn.Server):
    """uvicorn's server, with the event loop's failed accepts reported to the guard (and its
    stacks dumped on SIGUSR2: ``server/stacks.py``)."""

    def __init__(self, config: uvicorn.Config, guard: ConnectionGuard) -> None:
        super().__init__(config)
        self.guard = guard

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(self.guard.loop_exception)
        dump_on_signal(loop)
        self.watch = asyncio.create_task(self.guard.watch_descriptors())
        await super().startup(sockets)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.watch.cancel()
        await super().shutdown(sockets)


def open_descriptors() -> int:
    """Descriptors this process holds open now (Linux's ``/proc``; 0 where it is missing; the
    limit when not even the listing's own descriptor is free)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError as error:
        return descriptor_limit() if error.errno in (errno.EMFILE, errno.ENFILE) else 0


def descriptor_limit() -> int:
    """This process's soft limit on open descriptors."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_descriptor_limit() -> tuple[int, int]:
    """Lift this process's soft limit on open descriptors to its hard limit (at most
    :data:`DESCRIPTOR_CEILING`); the limit before and after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = DESCRIPTOR_CEILING if hard == resource.RLIM_INFINITY else min(hard, DESCRIPTOR_CEILING)
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            return soft, soft
        return soft, wanted
    return soft, soft

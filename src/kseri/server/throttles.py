"""Allowances over time, kept where every process of the server counts against the same ones.

A single process keeps them in memory. A cluster (``--redis``) keeps them in its Redis, so a
client rotating across N processes meets one allowance, not N: table creation per address
(quick games included), seeks per account and per address, sign-ups per address, failed
sign-ins per account and per address. Two shapes (``server/limits.py`` holds their numbers):

- :class:`SharedBuckets`: a token bucket per key (``rate`` a second, ``burst`` at once), in one
  Lua script per request so concurrent processes never spend the same token twice;
- :class:`SharedWindow`: at most ``limit`` events per key within a sliding window (a sorted set
  per key).

Both read Redis's clock (``TIME``), never a process's, and expire their keys once full again,
so Redis holds only the recently active keys. While Redis cannot be reached each process
counts alone, in memory, and says so in its log once a minute: a throttle never refuses
everyone because the cluster's Redis is down.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import deque

from redis.asyncio import Redis
from redis.exceptions import RedisError

from kseri.server.limits import KeyedBuckets

log = logging.getLogger("kseri.server")

THROTTLE_KEYS = 10_000
"""Keys a throttle holds before it drops the expired ones (so a flood of names cannot fill memory)."""
PREFIX = "kseri:throttle:"
"""The Redis keys' prefix: ``kseri:throttle:<name>:<key>``."""
WARN_EVERY = 60.0
"""Seconds between two log lines about Redis refusing a throttle."""

_TAKE = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1e6
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(held[1]) or burst
local stamp = tonumber(held[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return tostring(wait)
"""
"""Spend one token of a bucket if it has one: ``0``, else the seconds until one is free."""

_WINDOW = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1e6
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if ARGV[3] == 'hit' then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
  return '0'
end
if redis.call('ZCARD', KEYS[1]) < limit then return '0' end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tostring(math.max(0, tonumber(oldest[2]) + window - now))
"""
"""A sliding window: count an event (``hit``), or the seconds until the key may act again."""


class Throttle:
    """At most ``limit`` events per key within ``window`` seconds (a sliding window, in memory)."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self._events: dict[str, deque[float]] = {}

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        events = self._events.get(key)
        if not events:
            return 0.0
        now = time.monotonic()
        while events and events[0] <= now - self.window:
            events.popleft()
        if not events:
            del self._events[key]
            return 0.0
        return events[0] + self.window - now if len(events) >= self.limit else 0.0

    def hit(self, key: str) -> None:
        """Count one event for ``key`` (past :data:`THROTTLE_KEYS` keys, the expired ones go)."""
        now = time.monotonic()
        if len(self._events) >= THROTTLE_KEYS:
            for old in [k for k, events in self._events.items() if events[-1] <= now - self.window]:
                del self._events[old]
        self._events.setdefault(key, deque()).append(now)

    def clear(self, key: str) -> None:
        """Forget ``key``'s events (a successful sign-in)."""
        self._events.pop(key, None)


class _Shared:
    """A throttle kept in Redis when there is one, in memory while there is none or it fails."""

    def __init__(self, redis: Redis | None, name: str) -> None:
        self.redis, self.name = redis, name
        self._warned = -WARN_EVERY

    def _key(self, key: str) -> str:
        return f"{PREFIX}{self.name}:{key}"

    def _failed(self, error: RedisError) -> None:
        now = time.monotonic()
        if now - self._warned >= WARN_EVERY:
            self._warned = now
            log.warning("the %s throttle cannot reach Redis (%s): this process counts alone meanwhile",
                        self.name, error)


class SharedBuckets(_Shared):
    """A token bucket per key (``rate`` a second, at most ``burst`` at once), every process's
    requests spending the same tokens."""

    def __init__(self, redis: Redis | None, name: str, rate: float, burst: float) -> None:
        super().__init__(redis, name)
        self.rate, self.burst = rate, burst
        self.here = KeyedBuckets(rate, burst)
        """The buckets of this process alone (no Redis, or Redis out of reach)."""

    async def take(self, key: str) -> float:
        """Spend one of ``key``'s tokens: ``0.0`` when spent, else the seconds until one is
        free (nothing spent)."""
        if self.redis is not None:
            try:
                wait = await self.redis.eval(_TAKE, 1, self._key(key), repr(self.rate), repr(self.burst))
                return float(wait)
            except RedisError as error:
                self._failed(error)
        return 0.0 if self.here.take(key) else max(1e-3, self.here.wait(key))


class SharedWindow(_Shared):
    """At most ``limit`` events per key within ``seconds`` (sliding), counted by every process."""

    def __init__(self, redis: Redis | None, name: str, limit: int, seconds: float) -> None:
        super().__init__(redis, name)
        self.limit, self.seconds = limit, seconds
        self.here = Throttle(limit, seconds)
        """The window of this process alone (no Redis, or Redis out of reach)."""

    async def wait(self, key: str) -> float:
        """Seconds until ``key`` may act again (0: now)."""
        if self.redis is not None:
            try:
                return float(await self.redis.eval(_WINDOW, 1, self._key(key), self.limit, repr(self.seconds),
                                                   "wait"))
            except RedisError as error:
                self._failed(error)
        return self.here.wait(key)

    async def hit(self, key: str) -> None:
        """Count one event for ``key``."""
        if self.redis is not None:
            try:
                await self.redis.eval(_WINDOW, 1, self._key(key), self.limit, repr(self.seconds), "hit",
                                      secrets.token_hex(8))
                return
            except RedisError as error:
                self._failed(error)
        self.here.hit(key)

    async def clear(self, key: str) -> None:
        """Forget ``key``'s events (a successful sign-in)."""
        self.here.clear(key)
        if self.redis is not None:
            try:
                await self.redis.delete(self._key(key))
            except RedisError as error:
                self._failed(error)


class Throttles:
    """Where the server's allowances are kept: in this process, or in the cluster's Redis
    (``redis_url``), one client for all of them."""

    def __init__(self, redis_url: str | None) -> None:
        self.redis: Redis | None = None if redis_url is None else Redis.from_url(redis_url)

    def buckets(self, name: str, rate: float, burst: float) -> SharedBuckets:
        """Token buckets named ``name`` (its keys' part of the Redis key)."""
        return SharedBuckets(self.redis, name, rate, burst)

    def window(self, name: str, limit: int, seconds: float) -> SharedWindow:
        """A sliding window named ``name``."""
        return SharedWindow(self.redis, name, limit, seconds)

    async def close(self) -> None:
        """Close the Redis client, if any."""
        if self.redis is not None:
            await self.redis.aclose()

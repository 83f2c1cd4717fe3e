"""Allowances over time, kept where every process of the server counts against the same ones.

A single process keeps them in memory. A cluster (``--redis``) keeps them in its Redis, so a
client rotating across N processes meets one allowance, not N: table creation per address
(quick games included), seeks per account and per address, sign-ups per address, failed
sign-ins per account and per address. Two shapes (``server/limits.py`` holds their numbers):

- :class:`SharedBuckets`: a token bucket per key (``rate`` a second, ``burst`` at once), in one
  Lua script per request so concurrent processes never spend the same token twice;
- :class:`SharedWindow`: at most ``limit`` events per key within a sliding window (a sorted set
  per key);
- :class:`SharedCounter`: at most ``ceiling`` things held at once per key (the WebSockets open
  from one address): a hash per key of each process's count, and a sorted set of the processes
  alive (each renews its own entry, and writes its counts again, every third of :data:`ALIVE`
  seconds), so a count is given back when its connection closes, and a dead process's counts
  stop counting within :data:`ALIVE` seconds.

All read Redis's clock (``TIME``), never a process's, and expire their keys once full again
(or once no live process holds anything there), so Redis holds only the recently active keys.
While Redis cannot be reached each process counts alone, in memory, and says so in its log
once a minute: a throttle never refuses everyone because the cluster's Redis is down.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque

from redis.asyncio import Redis
from redis.exceptions import RedisError

from kseri.server.limits import Counter, KeyedBuckets

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

ALIVE = 10.0
"""Seconds a process's counts of things held (:class:`SharedCounter`) outlive its last renewal:
after a kill -9, its connections stop counting within this."""
BEAT_KEYS = 500
"""Keys one renewal script touches at most (a process holding more renews them in several)."""

_ACQUIRE = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1e6
local ceiling, me, alive = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], now + alive, me)
redis.call('PEXPIRE', KEYS[2], math.ceil(alive * 1000))
local held = redis.call('HGETALL', KEYS[1])
local total = 0
for i = 1, #held, 2 do
  local until_ = redis.call('ZSCORE', KEYS[2], held[i])
  if until_ and tonumber(until_) >= now then total = total + tonumber(held[i + 1])
  else redis.call('HDEL', KEYS[1], held[i]) end
end
if total >= ceiling then return 0 end
redis.call('HINCRBY', KEYS[1], me, 1)
redis.call('PEXPIRE', KEYS[1], math.ceil(alive * 1000))
return 1
"""
"""Count one more thing held for a key by this process, unless the live processes' counts for
it reach the ceiling (a dead process's counts are dropped on the way): ``1``, else ``0``."""

_RELEASE = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""
"""Count one thing fewer held for a key by this process."""

_BEAT = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1e6
local me, alive = ARGV[1], tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + alive, me)
redis.call('PEXPIRE', KEYS[1], math.ceil(alive * 1000))
for i = 2, #KEYS do
  if ARGV[i + 1] == '0' then redis.call('HDEL', KEYS[i], me)
  else
    redis.call('HSET', KEYS[i], me, ARGV[i + 1])
    redis.call('PEXPIRE', KEYS[i], math.ceil(alive * 1000))
  end
end
return 0
"""
"""This process is alive: renew its entry, and write its counts again with their keys' expiry
(a count of 0 removes its field), so a change Redis lost or missed (while it was out of reach,
or restarted), or one still on its way as the counts were read, is made good within a renewal."""


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


class SharedCounter(_Shared):
    """At most ``ceiling`` things held at once per key (WebSockets open from one address),
    counted by every live process: each one's own counts in :attr:`here`, and in Redis a hash
    per key of every process's count beside a sorted set of the processes alive."""

    def __init__(self, redis: Redis | None, name: str, ceiling: int, me: str) -> None:
        super().__init__(redis, name)
        self.ceiling, self.me = ceiling, me
        self.here = Counter(ceiling)
        """This process's counts (the cluster's when there is no Redis, or it is out of reach)."""
        self._alive = f"{PREFIX}{name}@processes"
        self._beating: asyncio.Task[None] | None = None
        self._released: set[str] = set()
        """Keys released since the last renewal (it removes the field of those now at 0)."""
        self._releases: set[asyncio.Task[None]] = set()

    async def acquire(self, key: str) -> bool:
        """Count one more thing held for ``key`` unless the cluster's count is at the ceiling."""
        if self.redis is None:
            return self.here.acquire(key)
        if self._beating is None:
            self._beating = asyncio.create_task(self._beat_forever())
        try:
            taken = await self.redis.eval(_ACQUIRE, 2, self._key(key), self._alive, self.ceiling, self.me,
                                          repr(ALIVE))
        except RedisError as error:
            self._failed(error)
            return self.here.acquire(key)
        if not int(taken):
            return False
        self.here.force(key)
        return True

    def release(self, key: str) -> None:
        """Count one thing fewer held for ``key`` (Redis is told beside: a handler closing its
        connection never waits on it)."""
        self.here.release(key)
        if self.redis is not None:
            self._released.add(key)
            task = asyncio.ensure_future(self._release(key))
            self._releases.add(task)
            task.add_done_callback(self._releases.discard)

    async def _release(self, key: str) -> None:
        assert self.redis is not None
        try:
            await self.redis.eval(_RELEASE, 1, self._key(key), self.me)
        except RedisError as error:
            self._failed(error)

    async def _beat_forever(self) -> None:
        while True:
            try:
                await self.beat()
            except RedisError as error:
                self._failed(error)
            await asyncio.sleep(ALIVE / 3)

    async def beat(self) -> None:
        """Renew this process's entry, and write its counts again with their keys' expiry."""
        assert self.redis is not None
        released, self._released = self._released, set()
        held = {key: 0 for key in released} | self.here.counts()
        keys = list(held)
        try:
            for start in range(0, max(1, len(keys)), BEAT_KEYS):
                chunk = keys[start:start + BEAT_KEYS]
                await self.redis.eval(_BEAT, 1 + len(chunk), self._alive, *map(self._key, chunk), self.me,
                                      repr(ALIVE), *(held[k] for k in chunk))
        except RedisError:
            self._released |= released
            raise

    async def close(self) -> None:
        """Stop renewing and leave the live processes (the others stop counting this one's)."""
        if self._beating is not None:
            self._beating.cancel()
            if self.redis is not None:
                try:
                    await self.redis.zrem(self._alive, self.me)
                except RedisError as error:
                    self._failed(error)


class Throttles:
    """Where the server's allowances are kept: in this process, or in the cluster's Redis
    (``redis_url``), one client for all of them."""

    def __init__(self, redis_url: str | None) -> None:
        self.redis: Redis | None = None if redis_url is None else Redis.from_url(redis_url)
        self.me = secrets.token_hex(6)
        """This process's name in the counters' hashes."""
        self._counters: list[SharedCounter] = []

    def buckets(self, name: str, rate: float, burst: float) -> SharedBuckets:
        """Token buckets named ``name`` (its keys' part of the Redis key)."""
        return SharedBuckets(self.redis, name, rate, burst)

    def window(self, name: str, limit: int, seconds: float) -> SharedWindow:
        """A sliding window named ``name``."""
        return SharedWindow(self.redis, name, limit, seconds)

    def counter(self, name: str, ceiling: int) -> SharedCounter:
        """Counts of things held at once, named ``name``."""
        counter = SharedCounter(self.redis, name, ceiling, self.me)
        self._counters.append(counter)
        return counter

    async def close(self) -> None:
        """Leave the counters and close the Redis client, if any."""
        for counter in self._counters:
            await counter.close()
        if self.redis is not None:
            await self.redis.aclose()

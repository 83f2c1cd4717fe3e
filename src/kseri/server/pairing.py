"""Quick games: players seek a game of a family and clock, and are paired.

A signed-in player seeks a rated game (by default) or a casual one; a guest, a casual one only,
holding its seek by the secret ``key`` the server answers with (``X-Seek-Key``). Rated seeks
pair with rated ones, casual with casual. A seek may name a waiting seek to **accept** (the
lobby's seek list): the two are paired at once, whatever their ratings. Two players one of
which blocks the other (``server/moderation.py``; an account may block a guest, known by its
cookie, ``server/guests.py``) are never paired; a banned account, a banned guest or anyone at
a banned address may not seek, an account banned from rated play not a rated game. Each
account's seeks are logged as they end, paired or withdrawn (the seek-spam signal).

A seek waits in memory. Every :data:`TICK` seconds (and at once when a seek arrives) the
seeks of each family and clock are grouped: a table's worth of players whose ratings lie
within the widest acceptable range among them, the closest group first. The range starts at
:data:`RANGE_START` points and widens by :data:`RANGE_GROWTH` a second of waiting. A rated group
gets a rated table (no hints, the clock, seats in random order, each bound to its account), a
casual group a casual table (hints allowed, not rated, seats not bound), and each seek learns
its seat and token. After the server's ``bot_offer`` seconds a seek's status
says so and names the ladder's level nearest the player's rating. Seeks show in the lobby.

In a cluster, one process holds the seeks and keeps them in Redis (:class:`Keeper`) for the
next process to hold them, should it die (``docs/server.md``, Cluster). A group's seats are kept
before its seekers hear of them, and a process takes the seeks over only between its pairing
rounds, so that what it restores is never overwritten by a round of the seeks it held before it
hung. A rated seek is refused
(409 ``in-game``) while the account is at an unfinished rated table on any process; a rated
group one of whose accounts was seated meanwhile is not seated, and that seek ends naming the
table (:class:`Playing`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from kseri.agents import LADDER
from kseri.rules import PRESETS
from kseri.server import guests
from kseri.server.accounts import COOKIE, AccountError, User, checked_user, errors, signed_in
from kseri.server.fairplay import SeekOutcome
from kseri.server.limits import Limits, client_address
from kseri.server.moderation import check_admitted, check_may_play
from kseri.server.ratings import BOT_RATINGS, ratings_of
from kseri.server.throttles import SharedBuckets, Throttles

log = logging.getLogger("kseri.server")

TICK = 0.25
"""Seconds between pairing rounds."""
RANGE_START = 100.0
"""Rating points a new seek accepts either way."""
RANGE_GROWTH = 25.0
"""Points the range widens by each second of waiting."""
CLOCKS = (10, 20, 30, 60)
"""Seconds per play a quick game may have."""
MAX_WAIT = 30.0
"""Longest a status request waits for news."""
KEEP_PAIRED = 300.0
"""Seconds a paired seek's answer stays available."""

Pair = Callable[[str, int, bool, list["Seek"]], Awaitable[None]]
"""Seats a group of seeks at a new table (family, clock, rated, seeks in seat order)."""
SEEK_KEY = "X-Seek-Key"
"""The header a guest's seek is held by."""
InGame = Callable[[str], Awaitable["str | None"]]
"""The rated table an account is playing (or is seated at, not yet begun), if any, on any
process of a cluster."""
TakeOver = Callable[[Callable[[], Awaitable["list[dict[str, Any]] | None"]]], Awaitable[None]]
"""Takes the seeks over when nobody holds them (:meth:`Pairing.take_over`), given how to take
their hold (the seeks kept, or ``None`` when another process took it first)."""
Apart = Callable[[list[str]], Awaitable[set[frozenset[str]]]]
"""The pairs among these accounts and guests that may not be paired (one blocks the other)."""
LogSeeks = Callable[[list[tuple[str, float, SeekOutcome]]], Awaitable[None]]
"""Keeps accounts' ended seeks: ``(account, made at (UNIX time), outcome)``."""


async def _nobody_apart(_users: list[str]) -> set[frozenset[str]]:
    return set()


class Keeper(Protocol):
    """Where a cluster's seeks are kept for the process that holds them next
    (:class:`~kseri.server.relay.Relay`): they survive the death of their holder."""

    async def keep(self, seeks: list[dict[str, Any]]) -> None:
        """Store the seeks (:meth:`Seek.stored`), while this process holds them."""

    async def holding(self) -> bool:
        """Whether this process holds the seeks now (not once it hung past its hold)."""


class Playing(Exception):
    """A rated group was not seated: these accounts (each with its table) are at another
    unfinished rated table already."""

    def __init__(self, tables: dict[str, str]) -> None:
        super().__init__(f"already at a rated table: {', '.join(sorted(tables))}")
        self.tables = tables


@dataclass(eq=False)
class Seek:
    """One player waiting for a quick game."""

    id: str
    user: str
    """The account's id, or a guest's ``guest:`` and its seek's key."""
    username: str
    family: str
    clock: int
    rating: float
    rated: bool = True
    accepts: str | None = None
    """The waiting seek this one accepts (paired with it at once), if any."""
    since: float = field(default_factory=time.monotonic)
    seat: dict[str, Any] | None = None
    """Once paired: ``{"table", "seat", "token"}``."""
    paired_at: float = 0.0
    in_game: str | None = None
    """Cancelled because the account is at this rated table (another process seated it)."""
    news: asyncio.Event = field(default_factory=asyncio.Event)
    guest: str | None = None
    """A guest's identity (``server/guests.py``), when its browser has one."""

    @property
    def who(self) -> str:
        """Whom blocks name: the account, or the guest's identity (else the seek's own key)."""
        return self.guest or self.user

    def made(self) -> float:
        """When the seek was made (UNIX time)."""
        return time.time() - (time.monotonic() - self.since)

    def reach(self, now: float) -> float:
        """How far from its rating this seek accepts a partner now."""
        return RANGE_START + RANGE_GROWTH * (now - self.since)

    def stored(self, now: float) -> dict[str, Any]:
        """The seek as its next holder restores it (:meth:`restored`); times as ages."""
        return {"id": self.id, "user": self.user, "username": self.username, "family": self.family,
                "clock": self.clock, "rating": self.rating, "rated": self.rated, "accepts": self.accepts,
                "waited": now - self.since, "seat": self.seat,
                "paired": now - self.paired_at if self.seat else None, "at": time.time(),
                "guest": self.guest}

    @classmethod
    def restored(cls, stored: dict[str, Any]) -> Seek:
        """A seek another process stored (ages counted from when it was stored)."""
        now, late = time.monotonic(), max(0.0, time.time() - stored["at"])
        seek = cls(stored["id"], stored["user"], stored["username"], stored["family"], stored["clock"],
                   stored["rating"], stored["rated"], stored["accepts"], now - stored["waited"] - late,
                   stored["seat"], guest=stored.get("guest"))
        if seek.seat is not None:
            seek.paired_at = now - stored["paired"] - late
            seek.news.set()
        return seek

    def public(self, now: float) -> dict[str, Any]:
        """The seek as the lobby shows it."""
        return {"id": self.id, "username": self.username, "family": self.family, "clock": self.clock,
                "rating": round(self.rating) if self.rated else None, "rated": self.rated,
                "guest": self.user.startswith("guest:"),
                "waiting": round(now - self.since, 1)}


def groups(seeks: list[Seek], size: int, now: float,
           apart: set[frozenset[str]] | None = None) -> list[list[Seek]]:
    """Disjoint groups of ``size`` seeks whose rating spread each member's range allows (the
    widest range in the group counts), the tightest first; never two seekers of a pair in
    ``apart``."""
    pool = sorted(seeks, key=lambda seek: (seek.rating, seek.since))
    found = []
    while len(pool) >= size:
        best: tuple[float, list[Seek]] | None = None
        for start in range(len(pool)):
            group = _group_from(pool, start, size, apart or set())
            if group is None:
                continue
            spread = group[-1].rating - group[0].rating
            if spread <= max(seek.reach(now) for seek in group) and (best is None or spread < best[0]):
                best = (spread, group)
        if best is None:
            break
        found.append(best[1])
        pool = [seek for seek in pool if seek not in best[1]]
    return found


def _group_from(pool: list[Seek], start: int, size: int, apart: set[frozenset[str]]) -> list[Seek] | None:
    """The ``size`` seeks nearest in rating from ``pool[start]`` upwards, skipping any who may
    not meet one already taken (``None`` when too few are left)."""
    group: list[Seek] = []
    for seek in pool[start:]:
        if all(frozenset((seek.who, other.who)) not in apart for other in group):
            group.append(seek)
            if len(group) == size:
                return group
    return None


def nearest_bot_level(family: str, rating: float) -> str:
    """The ladder's level (a rung, the expert or the master) whose rating in ``family`` is
    nearest ``rating``; the expert where the family's bots are not measured."""
    rated = BOT_RATINGS.get(family, {})
    levels = [name for name in LADDER if name in rated]
    return min(levels, key=lambda name: abs(rated[name] - rating)) if levels else "expert"


class Pairing:
    """The seeks waiting, and the task that pairs them."""

    def __init__(self, pair: Pair, bot_offer: float, limits: Limits | None = None,
                 tables: SharedBuckets | None = None, in_game: InGame | None = None,
                 throttles: Throttles | None = None, apart: Apart = _nobody_apart,
                 log_seeks: LogSeeks | None = None) -> None:
        self.pair = pair
        self.apart = apart
        """Which waiting accounts and guests may not be paired (``moderation.blocked_pairs``)."""
        self.log_seeks = log_seeks
        self._ended: list[tuple[str, float, SeekOutcome]] = []
        """Accounts' seeks ended since they were last logged."""
        self.bot_offer = bot_offer
        limits = limits or Limits()
        self.limits = limits
        throttles = throttles or Throttles(None)
        self.tables = tables or throttles.buckets("tables", limits.tables_per_minute / 60,
                                                  limits.tables_burst)
        """The addresses' allowance of new tables, shared with ``POST /api/tables``."""
        self.in_game = in_game or _nowhere
        rate = limits.seeks_per_minute
        self._per_account = throttles.buckets("seeks", rate / 60, rate)
        self._per_address = throttles.buckets("seeks-address", 5 * rate / 60, 5 * rate)
        self.seeks: dict[str, Seek] = {}
        """The seeks waiting, and those paired in the last :data:`KEEP_PAIRED` seconds."""
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.keeper: Keeper | None = None
        """Where the seeks are kept for the next holder (a cluster's), if anywhere."""
        self._kept: list[tuple[str, bool]] | None = None
        """The seeks as last kept (ids, paired or not)."""
        self._round = asyncio.Lock()
        """Held through a pairing round, and while the seeks are taken over (:meth:`take_over`)."""

    def start(self) -> None:
        """Begin pairing."""
        self._task = asyncio.create_task(self._forever())

    async def stop(self) -> None:
        """Stop pairing (the seeks ended meanwhile logged)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._log()

    async def admit(self, user: User | None, address: str, rated: bool = True) -> None:
        """Refuse a new seek (:class:`AccountError`) for a rated game from an account in one (409,
        naming the table), or past the seeks allowed an account (a guest: its address) or an
        address, or past the address's allowance of new tables (429): a seek may open a table,
        so it spends one."""
        table = await self.in_game(user.id) if user is not None and rated else None
        if table is not None:
            raise AccountError(409, "in-game", f"you are already playing the rated table {table!r}; "
                               "finish it before seeking another game", table=table)
        limits = self.limits
        for buckets, key in ((self._per_account, user.id if user else address), (self._per_address, address)):
            if wait := await buckets.take(key):
                raise AccountError(429, "throttled", f"at most {limits.seeks_per_minute:g} seeks a minute "
                                   "from one account", wait)
        if wait := await self.tables.take(address):
            raise AccountError(429, "throttled", f"at most {limits.tables_per_minute:g} new tables a minute "
                               "from one address (quick games count)", wait)

    async def seek(self, user: User, rating: float, family: str, clock: int, *, rated: bool = True,
                   accepts: str | None = None, guest: str | None = None) -> Seek:
        """A new seek (replacing the user's earlier one); ``accepts``: a waiting seek of the
        same kind to be paired with at once (404 when there is none; 409 for one's own);
        ``guest``: a guest's identity."""
        if accepts is not None:
            target = self.seeks.get(accepts)
            if target is None or target.seat is not None:
                raise AccountError(404, "no-such-seek", "that player is no longer waiting")
            if target.user == user.id:
                raise AccountError(409, "own-seek", "that is your own seek")
            if (target.family, target.clock, target.rated) != (family, clock, rated):
                kind = "rated" if target.rated else "casual"
                wanted = f"{target.family}, {target.clock} s, {kind}"
                raise AccountError(409, "other-kind", f"that seek is for another game: {wanted}")
            if await self.apart([guest or user.id, target.who]):
                raise AccountError(403, "blocked", "you cannot play this player: one of you blocks the other")
        for old in [s for s in self.seeks.values() if s.user == user.id and s.seat is None]:
            self.cancel(old)
        seek = Seek(secrets.token_urlsafe(12), user.id, user.username, family, clock, rating, rated, accepts,
                    guest=guest)
        self.seeks[seek.id] = seek
        self._wake.set()
        return seek

    def cancel(self, seek: Seek) -> None:
        """Withdraw a seek."""
        if self.seeks.pop(seek.id, None) is not None and seek.seat is None:
            self._ended_as(seek, "withdrawn")
        seek.news.set()

    def _ended_as(self, seek: Seek, outcome: SeekOutcome) -> None:
        """Note an account's seek ended (logged by :meth:`_log`)."""
        if self.log_seeks is not None and not seek.user.startswith("guest:"):
            self._ended.append((seek.user, seek.made(), outcome))

    async def _log(self) -> None:
        """Keep the seeks ended since last time (``log_seeks``)."""
        if self.log_seeks is None or not self._ended:
            return
        ended, self._ended = self._ended, []
        try:
            await self.log_seeks(ended)
        except Exception:  # the signal misses them; pairing goes on
            log.exception("could not log %d ended seeks", len(ended))

    def status(self, seek: Seek) -> dict[str, Any]:
        """Where a seek stands: waiting (with a bot offered after a while) or paired (once its
        seat is kept: :meth:`pair_up`)."""
        if seek.seat is not None and seek.news.is_set():
            return {"status": "paired", **seek.seat}
        if seek.id not in self.seeks:
            return {"status": "cancelled", **({"in_game": seek.in_game} if seek.in_game else {})}
        waited = time.monotonic() - seek.since
        return {"status": "waiting", "waited": round(waited, 1), "offer_bot": waited >= self.bot_offer,
                "bot_level": nearest_bot_level(seek.family, seek.rating)}

    def lobby(self) -> list[dict[str, Any]]:
        """The seeks waiting, oldest first."""
        now = time.monotonic()
        waiting = [s for s in self.seeks.values() if s.seat is None]
        return [s.public(now) for s in sorted(waiting, key=lambda s: s.since)]

    async def _forever(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), TICK)
            self._wake.clear()
            now = time.monotonic()
            for seek in [s for s in self.seeks.values() if s.seat and now - s.paired_at > KEEP_PAIRED]:
                del self.seeks[seek.id]
            async with self._round:
                try:
                    if self.seeks and self.keeper is not None and not await self.keeper.holding():
                        self.seeks = {}  # another process holds them now (restored from what was kept)
                        continue
                    await self.pair_up()
                except Exception:  # the seeks wait on; the next round tries again
                    log.exception("pairing failed")
                await self._keep()
            await self._log()

    async def _keep(self) -> None:
        """Store the seeks for the next holder when they changed (a new one, one paired or gone)."""
        shown = sorted((seek.id, seek.seat is not None) for seek in self.seeks.values())
        if self.keeper is None or shown == self._kept:
            return
        now = time.monotonic()
        try:
            await self.keeper.keep([seek.stored(now) for seek in self.seeks.values()])
        except Exception:
            log.exception("could not keep the seeks")
            return
        self._kept = shown

    async def take_over(self, take: Callable[[], Awaitable[list[dict[str, Any]] | None]]) -> None:
        """Between two pairing rounds, ``take`` the seeks' hold if nobody has it (the seeks kept,
        or ``None`` when another process took it first), and restore them here."""
        async with self._round:
            stored = await take()
            if stored is None:
                return
            self.seeks = {seek.id: seek for seek in map(Seek.restored, stored)}
            self._kept = None
            self._wake.set()
            log.warning("holding the seeks now: %d restored", len(self.seeks))

    async def pair_up(self) -> None:
        """Seat every group that can be made now: each acceptance with the seek it accepts
        (filled up from the others waiting at a bigger table), then by rating."""
        now = time.monotonic()
        by_kind: dict[tuple[str, int, bool], list[Seek]] = {}
        for seek in self.seeks.values():
            if seek.seat is None:
                by_kind.setdefault((seek.family, seek.clock, seek.rated), []).append(seek)
        known = sorted({seek.who for seek in self.seeks.values()
                        if seek.seat is None and not seek.who.startswith("guest:")})
        apart = await self.apart(known) if len(known) > 1 else set()
        for (family, clock, rated), waiting in by_kind.items():
            size = PRESETS[family].players
            found = []
            for seek in [s for s in waiting if s.accepts is not None]:
                target = next((s for s in waiting if s.id == seek.accepts), None)
                if seek not in waiting or target is None or len(waiting) < size:
                    continue
                rest = [s for s in waiting if s not in (seek, target)]
                group = _group_from([target, seek, *rest], 0, size, apart)
                if group is None or group[:2] != [target, seek]:
                    continue
                found.append(group)
                waiting = [s for s in waiting if s not in group]
            for group in found + groups(waiting, size, now, apart):
                random.shuffle(group)
                try:
                    await self.pair(family, clock, rated, group)
                except Playing as playing:  # seated elsewhere meanwhile: those seeks end, the rest wait
                    for seek in group:
                        seek.in_game = playing.tables.get(seek.user)
                        if seek.in_game is not None:
                            self.cancel(seek)
                    continue
                for seek in group:
                    seek.paired_at = time.monotonic()
                    self._ended_as(seek, "paired")
                await self._keep()  # the next holder knows these seats before anyone is told them
                for seek in group:
                    seek.news.set()


async def _nowhere(user: str) -> None:
    """No account is at a rated table (a pairing on its own, without the players' layer)."""


# -- HTTP -----------------------------------------------------------------------------------------

class SeekBody(BaseModel):
    """A quick game: the rule family (a preset), the clock (seconds a play), rated or casual
    (a guest's is casual), a guest's name, and the waiting seek it accepts, if any."""

    model_config = ConfigDict(extra="forbid")
    family: Annotated[str, Field(max_length=40)] = "greek"
    clock: int = 20
    casual: bool = False
    name: Annotated[str | None, Field(max_length=24)] = None
    accept: Annotated[str | None, Field(max_length=40)] = None


router = APIRouter(prefix="/api/seeks", tags=["pairing"])


def _pairing(request: Request) -> Pairing:
    pairing: Pairing = request.app.state.players.pairing
    return pairing


def _guest_user(key: str) -> str:
    return f"guest:{key}"


async def _seeker(request: Request, changing: bool) -> User | None:
    """The signed-in account behind a seek request (CSRF checked when ``changing``), or
    ``None`` for a guest (no session cookie)."""
    if request.cookies.get(COOKIE) is None:
        return None
    return await (checked_user(request) if changing else signed_in(request))


async def _own(request: Request, seek_id: str, changing: bool) -> Seek:
    """The caller's seek: an account's by its session, a guest's by its key."""
    seek = _pairing(request).seeks.get(seek_id)
    key = request.headers.get(SEEK_KEY)
    if key is not None:
        owner = _guest_user(key)
    else:
        user = await _seeker(request, changing)
        if user is None:
            raise AccountError(401, "not-signed-in", f"sign in, or send a guest seek's key in {SEEK_KEY}")
        owner = user.id
    if seek is None or not secrets.compare_digest(seek.user, owner):
        raise AccountError(404, "no-such-seek", f"you have no seek {seek_id!r}")
    return seek


@router.post("", status_code=201, responses=errors(401, 403, 404, 409, 422, 429))
async def create_seek(body: SeekBody, request: Request, response: Response) -> dict[str, Any]:
    """Seek a quick game (rated, or ``casual``; a guest's is casual and its answer has the
    ``key`` to send as ``X-Seek-Key``, and the guest's cookie); poll ``GET /api/seeks/{id}``
    for the seat. Refused to a banned account, a banned guest, or a banned address."""
    if body.family not in PRESETS:
        raise AccountError(422, "bad-family", f"unknown family {body.family!r}; the families are: "
                           + ", ".join(PRESETS))
    if body.clock not in CLOCKS:
        raise AccountError(422, "bad-clock", f"a quick game's clock is one of {', '.join(map(str, CLOCKS))} "
                           f"seconds a play, not {body.clock}")
    user = await _seeker(request, changing=True)
    if user is None and not body.casual:
        raise AccountError(401, "not-signed-in", "sign in to play a rated game; guests play casual ones "
                           "(\"casual\": true)")
    pairing = _pairing(request)
    store = request.app.state.players.store
    token = None if user is not None else guests.guest_token(request)
    guest = None if token is None else guests.identity(token)
    await check_admitted(store, client_address(request.scope), guest)
    if user is not None:
        await check_may_play(store, user.id, rated=not body.casual)
    await pairing.admit(user, client_address(request.scope), rated=not body.casual)
    key = None
    if token is not None:
        guests.remember(request, response, token)
    if user is None:
        key = secrets.token_urlsafe(18)
        name = (body.name or "").strip() or "Guest"
        user = User(_guest_user(key), name, "", "")
    rating = 0.0 if body.casual else (await ratings_of(store, [user.id], body.family))[user.id][0].mu
    seek = await pairing.seek(user, rating, body.family, body.clock, rated=not body.casual,
                              accepts=body.accept, guest=guest)
    return {"id": seek.id, **({"key": key} if key else {}), **pairing.status(seek)}


@router.get("")
async def list_seeks(request: Request) -> dict[str, Any]:
    """The seeks waiting (the lobby shows them)."""
    return {"seeks": _pairing(request).lobby()}


@router.get("/{seek_id}", responses=errors(401, 404, 422))
async def seek_status(seek_id: str, request: Request,
                      wait: Annotated[float, Query(ge=0, le=MAX_WAIT)] = 0) -> dict[str, Any]:
    """The seek's status; with ``wait``, answers as soon as it is paired (or after ``wait`` s)."""
    seek = await _own(request, seek_id, changing=False)
    if wait and seek.seat is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(seek.news.wait(), wait)
    return _pairing(request).status(seek)


@router.delete("/{seek_id}", responses=errors(401, 403, 404))
async def cancel_seek(seek_id: str, request: Request) -> dict[str, Any]:
    """Withdraw a seek."""
    seek = await _own(request, seek_id, changing=True)
    _pairing(request).cancel(seek)
    return _pairing(request).status(seek)


__all__ = ["CLOCKS", "Keeper", "Pairing", "Playing", "Seek", "groups", "router"]

"""Tournaments scheduled by the server (``kseri serve --schedule``, ``docs/events.md``).

An entry reads ``daily HH:MM RULES FORMAT ROUNDS`` or ``weekly DAY HH:MM RULES FORMAT ROUNDS``
(UTC; ``DAY`` is ``mon`` to ``sun``), e.g. ``daily 18:00 greek swiss 5``. Each occurrence is
created :data:`ANNOUNCE` seconds before its start (so that players can join) through the
tournaments' public creation function (:meth:`kseri.server.tournaments.Tournaments.create`),
public, organised by the server (:data:`SERVER`).

Once each, whatever the number of processes: an occurrence is first claimed in the database
(``scheduled_tournaments``, keyed by the occurrence: its start and the entry), and only the
process whose claim is stored creates it. A creation refused for a passing reason (the
organiser's limit of tournaments not over, :data:`~kseri.server.tournaments.OPEN_PER_ORGANISER`)
gives the claim back, to be tried again at the next look until the start time; any other
refusal keeps the claim and is logged. An occurrence whose start passed while no process ran
is not created late.

The server is no player: its tournaments are created without their organiser entered, so that
no list ever shows the server as an entrant.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Column, Float, String, Table, delete, insert, update
from sqlalchemy.exc import IntegrityError

from kseri.rules import Rules, RulesError
from kseri.server import db
from kseri.server.accounts import User
from kseri.server.daily import clock
from kseri.server.errors import ApiError
from kseri.server.tournaments import FORMATS, MAX_ROUNDS, Tournaments

ROUND_FORMATS = tuple(fmt for fmt in FORMATS if fmt != "arena")
"""The formats a schedule entry names: those played in rounds (an arena is played for a time)."""

log = logging.getLogger("kseri.server")

ANNOUNCE = 3600.0
"""Seconds before its start an occurrence is created (and open to join)."""
TICK = 2.0
"""Seconds between the scheduler's looks at the clock."""
SERVER = User(id="server", username="kseri", csrf="", token_hash="")
"""The organiser of the server's tournaments (no account: nobody can start or delete them)."""
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
"""The days a weekly entry names."""

scheduled = Table(
    "scheduled_tournaments", db.metadata,
    Column("occurrence", String(120), primary_key=True),  # the start (ISO) and the entry's digest
    Column("claimed", Float, nullable=False),
    Column("tournament_id", String(24), nullable=True),  # None: claimed, not created
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the schedule: when (every day, or one day a week, at ``hour:minute`` UTC)
    and what (rules, format, rounds)."""

    text: str
    weekday: int | None
    """0 (Monday) to 6; ``None``: every day."""
    hour: int
    minute: int
    rules: str
    format: str
    rounds: int

    @classmethod
    def parse(cls, text: str) -> Entry:
        """An entry from its text (``daily 18:00 greek swiss 5``); a bad one raises
        :class:`ValueError` naming the problem."""
        words = text.split()
        if not words or words[0] not in ("daily", "weekly"):
            raise ValueError(f"a schedule entry begins with 'daily' or 'weekly', not {text!r}")
        weekday = None
        if words[0] == "weekly":
            if len(words) < 2 or words[1].lower() not in DAYS:
                raise ValueError(f"a weekly entry names its day ({', '.join(DAYS)}): {text!r}")
            weekday = DAYS.index(words[1].lower())
        rest = words[1 if weekday is None else 2:]
        if len(rest) != 4:
            raise ValueError(f"a schedule entry reads '{words[0]}{' DAY' if weekday is not None else ''} "
                             f"HH:MM RULES FORMAT ROUNDS', not {text!r}")
        at, rules, fmt, rounds = rest
        hour, _, minute = at.partition(":")
        if not (hour.isdigit() and minute.isdigit() and int(hour) < 24 and int(minute) < 60):
            raise ValueError(f"the time is HH:MM (UTC), not {at!r}")
        try:
            players = Rules.from_spec(rules).players
        except (RulesError, ValueError) as error:
            raise ValueError(f"bad rules {rules!r}: {error}") from None
        if players != 2:
            raise ValueError(f"tournaments are for two-player rule sets ({rules!r} seats {players})")
        if fmt not in ROUND_FORMATS:
            arena = " (an arena runs for a length of time, not rounds)" if fmt == "arena" else ""
            raise ValueError(f"the format is one of {', '.join(ROUND_FORMATS)}, not {fmt!r}{arena}")
        if not (rounds.isdigit() and 1 <= int(rounds) <= MAX_ROUNDS):
            raise ValueError(f"the rounds are 1 to {MAX_ROUNDS}, not {rounds!r}")
        return cls(" ".join(words), weekday, int(hour), int(minute), rules, fmt, int(rounds))

    def next_start(self, now: datetime) -> datetime:
        """The first start after ``now`` (an aware time)."""
        start = now.replace(hour=self.hour, minute=self.minute, second=0, microsecond=0)
        while start <= now or (self.weekday is not None and start.weekday() != self.weekday):
            start += timedelta(days=1)
        return start

    def name(self) -> str:
        """The tournament's name: ``Daily greek swiss 18:00 UTC``."""
        when = "Daily" if self.weekday is None else f"{DAYS[self.weekday].capitalize()}day"
        return f"{when} {self.rules} {self.format} {self.hour:02}:{self.minute:02} UTC"[:80]

    def occurrence(self, start: datetime) -> str:
        """The database key of the occurrence starting at ``start``."""
        return f"{start.isoformat()}|{hashlib.sha256(self.text.encode()).hexdigest()[:32]}"


def parse_schedule(texts: tuple[str, ...] | list[str]) -> list[Entry]:
    """Every entry of the schedule (a bad one raises :class:`ValueError`)."""
    return [Entry.parse(text) for text in texts]


class Schedule:
    """Creates the schedule's tournaments at their times, over the server's database."""

    def __init__(self, store: db.Store, tournaments: Tournaments, entries: list[Entry],
                 now: Callable[[], datetime] = clock, tick: float = TICK) -> None:
        self.store = store
        self.tournaments = tournaments
        self.entries = entries
        self.now = now
        self.tick = tick
        self._done: set[str] = set()
        """Occurrences this process saw claimed (it looks no further at them)."""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin looking at the clock (nothing to do without entries)."""
        if self.entries:
            self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop looking (what was created stays)."""
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            try:
                await self.step()
            except Exception:
                log.exception("schedule: a look failed (the next one tries again)")
            await asyncio.sleep(self.tick)

    async def step(self) -> list[str]:
        """Create each occurrence now due (its start within :data:`ANNOUNCE`) that no process
        claimed yet; the ids of the tournaments this call created."""
        now = self.now()
        created = []
        for entry in self.entries:
            start = entry.next_start(now)
            key = entry.occurrence(start)
            if key in self._done or (start - now).total_seconds() > ANNOUNCE:
                continue
            made = await self._create(entry, key, (start - now).total_seconds())
            if made is not None:
                created.append(made)
        return created

    async def _create(self, entry: Entry, key: str, starts_in: float) -> str | None:
        try:
            async with self.store.engine.begin() as connection:
                await connection.execute(insert(scheduled).values(
                    occurrence=key, claimed=self.now().timestamp(), tournament_id=None))
        except IntegrityError:
            self._done.add(key)  # another process claimed it
            return None
        try:
            made = await self.tournaments.create(SERVER, entry.name(), entry.rules, entry.format,
                                                 entry.rounds, starts_in, None, True, enter=False)
        except ApiError as error:
            if error.status in (409, 429):  # for now: tried again at the next look
                async with self.store.engine.begin() as connection:
                    await connection.execute(delete(scheduled).where(scheduled.c.occurrence == key))
                log.warning("schedule: %r not created yet (%s); trying again", entry.text, error.message)
            else:
                self._done.add(key)
                log.error("schedule: %r not created: %s", entry.text, error.message)
            return None
        tournament_id = str(made["id"])
        async with self.store.engine.begin() as connection:
            await connection.execute(update(scheduled).where(scheduled.c.occurrence == key).values(
                tournament_id=tournament_id))
        self._done.add(key)
        log.info("schedule: created tournament %s (%s)", tournament_id, entry.text)
        return tournament_id

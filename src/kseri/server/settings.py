"""The game server's settings: where the database lives and how the table robots behave."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from kseri.server.limits import Limits

DATABASE_ENV = "KSERI_DATABASE_URL"
"""The environment variable naming the database when ``--db`` is not given."""
REDIS_ENV = "KSERI_REDIS_URL"
"""The environment variable naming the cluster's Redis when ``--redis`` is not given."""


def default_database_url() -> str:
    """``$KSERI_DATABASE_URL``, else an SQLite file in the user's data folder (created)."""
    url = os.environ.get(DATABASE_ENV)
    if url:
        return url
    folder = Path(platformdirs.user_data_dir("kseri", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{folder / 'kseri.db'}"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Everything the server needs to know at start-up."""

    database_url: str
    bot_delay: float = 0.8
    """Seconds a bot (or a stand-in for an absent player) waits before it plays."""
    grace: float = 60.0
    """Seconds a disconnected player keeps their seat before a stand-in bot plays for them."""
    ready_timeout: float = 30.0
    """Seconds the server waits for players' ``ready`` before dealing anyway."""
    limits: Limits = field(default_factory=Limits)
    """Every bound on what one client may ask (``server/limits.py``)."""
    allowed_origins: tuple[str, ...] = ()
    """Origins besides the server's own whose pages may open WebSockets (``*``: any)."""
    search_workers: int | None = None
    """Worker processes for hints and the master's moves (default: one core less than the
    machine has, at least one)."""
    bot_offer: float = 20.0
    """Seconds a quick-game seek waits for an opponent before the page offers a bot."""
    redis_url: str | None = None
    """The Redis through which a cluster's processes talk (``None``: one process alone;
    ``server/cluster.py``, ``docs/server.md``)."""
    rated_talk: bool = True
    """Whether players may say table-talk phrases in rated games (``server/talk.py``); casual
    tables always allow them."""
    lease: float = 4.0
    """Seconds a cluster's process holds a table without renewing its lease: an owner that
    died or hung loses its tables this long after its last renewal."""
    puzzle_cuts: float = 2.0
    """Finished games a minute, at most, whose clear positions are cut into puzzles in the
    background (``server/puzzles.py``, :class:`~kseri.server.puzzles.PuzzleCutter`; 0: none)."""
    schedule: tuple[str, ...] = ()
    """Tournaments the server creates at their times (``daily 18:00 greek swiss 5``,
    ``server/schedule.py``)."""

    def cluster_problem(self) -> str | None:
        """Why these settings cannot run a cluster (it needs PostgreSQL), or ``None``."""
        if self.redis_url is None:
            return None
        if not self.database_url.startswith("postgresql"):
            return ("a cluster (--redis) needs a PostgreSQL database (--db postgresql+asyncpg://...), "
                    "which all its processes share")
        if self.lease < 0.5:
            return f"the lease must be at least 0.5 seconds, not {self.lease:g}"
        return None

"""The game server's settings: where the database lives and how the table robots behave."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

DATABASE_ENV = "KSERI_DATABASE_URL"
"""The environment variable naming the database when ``--db`` is not given."""


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
    max_message: int = 4096
    """Largest WebSocket message accepted, in bytes."""
    rate: float = 20.0
    """Messages per second a connection may send on average (token bucket)."""
    burst: float = 40.0
    """Messages a connection may send at once (the bucket's size)."""
    signup_limit: int = 5
    """Accounts one address may create an hour."""
    signin_limit: int = 10
    """Failed sign-ins an account may see in 15 minutes (an address: five times as many)."""
    bot_offer: float = 20.0
    """Seconds a quick-game seek waits for an opponent before the page offers a bot."""

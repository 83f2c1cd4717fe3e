"""A table's seats: who sits there (a person, with the hash of their secret token, or a bot of
some level), and for people their connections' state; the tokens themselves."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field


def hash_token(token: str) -> str:
    """What the database keeps of a seat's token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A seat's secret token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def rematch_token(token: str, rematch_id: str) -> str:
    """The token of a player's seat at a rematch, derived from their seat's token at the match
    before: only they can compute it, and asking for the rematch again gives the same one."""
    digest = hmac.new(token.encode(), b"rematch:" + rematch_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


@dataclass(slots=True)
class SeatState:
    """A seat: who sits there, and (for people) their connection's state."""

    kind: str
    level: str | None
    name: str | None
    token_hash: str | None
    user: str | None = None
    """The account holding the seat (``server/accounts.py``), if any."""
    connections: int = 0
    last_seen: float = field(default_factory=time.monotonic)

    @property
    def taken(self) -> bool:
        """A bot's seat is always taken; a person's once someone holds its token."""
        return self.kind == "bot" or self.token_hash is not None

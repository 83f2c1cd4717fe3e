"""Guests' identity: who a player without an account is, so that an account can block them and
a moderator ban them (``server/moderation.py``, ``docs/players.md``).

A guest is known by a random token in an HttpOnly cookie (:data:`GUEST_COOKIE`, SameSite=Lax,
Secure over https), given with the first seat, seek or table a browser without an account
asks for, and kept a year. The server keeps only its digest, the guest's **identity**
(:func:`identity`: ``guest-`` and 32 hex digits), at each seat the guest takes
(``seats.guest_id``) and in the blocks and bans that name the guest; the identity is never
shown to other players. A guest who drops the cookie is a new guest: that is what address bans
are for.
"""

from __future__ import annotations

import hashlib
import secrets

from starlette.requests import HTTPConnection
from starlette.responses import Response

from kseri.server import db

GUEST_COOKIE = "kseri_guest"
"""The cookie that carries a guest's token."""
GUEST_PREFIX = "guest-"
"""How a guest's identity begins (an account's id never does: it has 16 characters)."""
GUEST_DAYS = 365
"""How long a guest's cookie lasts."""


def identity(token: str) -> str:
    """A guest's identity: what the server keeps of its token (a SHA-256 digest, shortened)."""
    return GUEST_PREFIX + hashlib.sha256(token.encode()).hexdigest()[:32]


def is_guest(who: str) -> bool:
    """Whether ``who`` (an account's id or a guest's identity) is a guest."""
    return who.startswith(GUEST_PREFIX) and len(who) == len(GUEST_PREFIX) + 32


def guest_of(connection: HTTPConnection) -> str | None:
    """The identity of the guest a request or WebSocket comes from (its cookie), if any."""
    token = connection.cookies.get(GUEST_COOKIE)
    return identity(token) if token and len(token) <= 100 else None


def guest_token(connection: HTTPConnection) -> str:
    """The guest's token a request carries, or a new one (:func:`remember` gives it)."""
    token = connection.cookies.get(GUEST_COOKIE)
    return token if token and len(token) <= 100 else secrets.token_urlsafe(24)


def remember(connection: HTTPConnection, response: Response, token: str) -> None:
    """Set (or renew) the guest's cookie on ``response``."""
    response.set_cookie(GUEST_COOKIE, token, max_age=GUEST_DAYS * 86400, path="/", httponly=True,
                        samesite="lax", secure=connection.url.scheme == "https")


async def bind(store: db.Store, table_id: str, seat: int, guest: str) -> None:
    """Note at a seat the guest who took it (``seats.guest_id``)."""
    batch = db.Batch()
    batch.updates.append(db.set_seat(table_id, seat, guest_id=guest))
    await store.write(batch)

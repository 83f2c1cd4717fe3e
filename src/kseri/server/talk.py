"""Table talk: a player says one of a few fixed phrases by its id (no free text anywhere, so
nothing to moderate and nothing to translate: each client shows the phrase in its own
language). A table's :class:`Talk` checks a ``say`` (a known phrase, a seated player, talk
allowed at the table and to the account, the seat's allowance) and answers the ``said``
message the table tells its whole audience at once.

Phrases are not events: they are not stored with the game, not part of its record, and a
client that (re)connects sees only phrases said after it did.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from kseri.server.limits import TokenBucket
from kseri.server.protocol import ProtocolError, Said
from kseri.server.settings import ServerSettings

log = logging.getLogger("kseri.server")

PHRASES = ("good-luck", "well-played", "nice-kseri", "thanks", "oops", "good-game")
"""Every phrase's id, in the order a client offers them."""

MayTalk = Callable[[str], Awaitable[bool]]
"""Whether the account (its id) may talk: the seam where moderation's mute is wired in
(``TableRegistry.may_talk``); guests are never asked about."""


async def allow_everyone(user: str) -> bool:
    """The default :data:`MayTalk`: nobody is muted."""
    return True


class Talk:
    """The table talk of one table."""

    def __init__(self, settings: ServerSettings, rated: bool, may_talk: MayTalk = allow_everyone) -> None:
        self.settings = settings
        self.allowed = settings.rated_talk or not rated
        """Whether the table's players may talk at all (``ServerSettings.rated_talk``)."""
        self.may_talk = may_talk
        self._allowance: dict[int, TokenBucket] = {}

    async def say(self, seat: int | None, user: str | None, phrase: str) -> Said:
        """The ``said`` message for ``seat`` (its account ``user``, if any) saying ``phrase``;
        raises :class:`ProtocolError` naming why it may not (nothing is told then)."""
        if phrase not in PHRASES:
            raise ProtocolError("unknown-phrase", f"there is no phrase {phrase!r}; the phrases are "
                                + ", ".join(PHRASES))
        if seat is None:
            raise ProtocolError("not-seated", "spectators cannot talk; only the table's players can")
        if not self.allowed:
            raise ProtocolError("talk-off", "table talk is off in rated games on this server")
        per_minute = self.settings.limits.talk_per_minute
        allowance = self._allowance.setdefault(seat, TokenBucket(per_minute / 60, max(1.0, per_minute / 2)))
        if not allowance.take():  # before the hook: asking it is bounded by the allowance too
            raise ProtocolError("throttled", f"at most {per_minute:g} phrases a minute")
        if user is not None and not await self._asked(user):
            raise ProtocolError("talk-off", "a moderator has muted your table talk")
        return Said(seat, phrase)

    async def _asked(self, user: str) -> bool:
        """:attr:`may_talk`'s answer; a hook that fails refuses this phrase as ``server-error``."""
        try:
            return await self.may_talk(user)
        except Exception:
            log.exception("could not ask whether account %s may talk", user)
            raise ProtocolError("server-error", "the server could not check that you may talk; "
                                "nothing was said") from None

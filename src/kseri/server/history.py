"""The round's plays as the table's page lists them: who played what, what it took, the marks
it scored, whether the server played it for an absent or out-of-time player, the last sweep of
the centre when the round ended, and who resigned if the match ended so.

Everything here is public (every seat sees the same list), so a table keeps one
:class:`RoundHistory`, fed with each event as the protocol shows it; it is rebuilt with the
match when a table's log is replayed, so a reload or a server restart shows the same list.
"""

from __future__ import annotations

from typing import Any

from orjson import Fragment

from kseri.engine import Match, Phase
from kseri.server.protocol import dumps

AUTO_REASONS = ("clock", "standin")
"""Why the server played a person's card: their turn clock ran out, or they were away."""


class RoundHistory:
    """The plays of the round at hand (or of the round just ended)."""

    def __init__(self) -> None:
        self.round: int | None = None
        self.plays: list[dict[str, Any]] = []
        self.sweep: dict[str, int] | None = None
        self.resigned: int | None = None
        self._centre = 0
        self._play_texts: list[str] = []

    def observe(self, shown: dict[str, Any], match: Match | None) -> None:
        """Take in one event, as :meth:`GameState.apply` shows it, after it was applied."""
        if match is None:
            return
        kind = shown["kind"]
        if kind == "round-start":
            self.round = shown["round"]
            self.plays = []
            self._play_texts = []
            self.sweep = None
            self._centre = match.view(0).centre_size
        elif kind == "resign":
            self.resigned = shown["seat"]
        elif kind == "match-end" and "forfeit" in shown:
            self.resigned = shown["forfeit"]  # a forfeit ends the match as a resignation does
        elif kind == "play":
            self.plays.append({"seat": shown["seat"], "card": shown["card"], "taken": shown["taken"],
                               "marks": shown["marks"], "auto": shown.get("auto")})
            self._centre = 0 if shown["taken"] else self._centre + 1
            if match.phase is not Phase.PLAYING:
                capturer = match.round_results[-1].last_capturer
                if capturer is not None and self._centre:
                    self.sweep = {"seat": capturer, "cards": self._centre}
                self._centre = 0

    def to_json(self) -> dict[str, Any] | None:
        """``{"round", "plays", "sweep", "resigned"}`` (docs/protocol.md), or ``None`` before the
        first deal."""
        if self.round is None:
            return None
        return {"round": self.round, "plays": self.plays, "sweep": self.sweep, "resigned": self.resigned}

    def to_text(self) -> str:
        """:meth:`to_json` as compact JSON text, each play encoded once (not once per state)."""
        data = self.to_json()
        if data is None:
            return "null"
        self._play_texts.extend(dumps(play) for play in self.plays[len(self._play_texts):])
        return dumps(data | {"plays": Fragment("[" + ",".join(self._play_texts) + "]")})


def auto_reason(seat_kind: str, clock_ran_out: bool) -> str | None:
    """Why the server plays for the seat whose turn it is: ``None`` for a bot's own play,
    ``clock`` when a person's clock ran out, ``standin`` when they are away."""
    if seat_kind == "bot":
        return None
    return "clock" if clock_ran_out else "standin"

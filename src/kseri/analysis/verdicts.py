"""Verdicts in the game's own words: what a costly play did wrong, from the search's values and
the position (never free text: a kind with its figures, worded per language by :func:`verdict_text`).

A play is judged when it trails the best card by at least :data:`SIGNIFICANT` points; its verdict
is the first of these that fits (the best card is the search's):

- ``missed_kseri``: the best card makes a kseri, the card played does not;
- ``kept_jack``: in the last batch the best card takes the pile with a Jack, the card played keeps it;
- ``last_sweep``: in the seat's last choice of the round the best card captures and the card
  played does not, leaving the last sweep to an opponent;
- ``lost_majority``: the best card's capture makes the majority of cards certain, the play does not;
- ``jack_on_small_pile``: a Jack spent on a pile worth at most :data:`SMALL_PILE` points while the
  best card keeps it;
- ``missed_capture``: the best card captures ``worth`` points more than the card played;
- ``gave_kseri``: a card laid on the empty centre whose rank is still out more often than the best card's;
- ``exposed_point_card``: a point card laid on the pile where the best card lays fewer points;
- ``better_card``: anything else, with one reason (:class:`Reason`) why the best card is better.

>>> from kseri import Match
>>> match = Match(seed=5)
>>> view = match.view(match.turn)
>>> cards = view.hand
>>> values = [(card, -float(i)) for i, card in enumerate(cards)]
>>> judge(view, cards[0], values) is None   # the best card: nothing to say
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from kseri.analysis.position import Play, Position
from kseri.analysis.texts import texts
from kseri.cards import JACK, Card
from kseri.engine import View

SIGNIFICANT = 0.5
"""A play trailing the best card by at least this many points gets a verdict."""
SMALL_PILE = 1
"""A pile worth at most this many points is too small for a Jack."""


class Kind(StrEnum):
    """What a costly play did wrong."""

    MISSED_KSERI = "missed_kseri"
    KEPT_JACK = "kept_jack"
    LAST_SWEEP = "last_sweep"
    LOST_MAJORITY = "lost_majority"
    JACK_ON_SMALL_PILE = "jack_on_small_pile"
    MISSED_CAPTURE = "missed_capture"
    GAVE_KSERI = "gave_kseri"
    EXPOSED_POINT_CARD = "exposed_point_card"
    BETTER_CARD = "better_card"


class Reason(StrEnum):
    """Why the best card is better, in one sentence (the ``better_card`` verdict)."""

    CAPTURES = "captures"
    """It takes the pile (``worth`` points, ``cards`` cards)."""
    KEEPS_JACK = "keeps_jack"
    """It keeps the Jack for a bigger pile."""
    SAFER = "safer"
    """Fewer cards of its rank are still out to answer it."""
    FEWER_POINTS = "fewer_points"
    """It lays fewer points on the pile."""
    LATER = "later"
    """It does better over the rest of the round (the search's figure only)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One costly play named in the game's terms."""

    kind: Kind
    card: Card
    """The card played."""
    better: Card
    """The search's best card."""
    loss: float
    """Points the play trails the best card by."""
    worth: int = 0
    """Points at stake: the capture missed (``missed_capture``), the pile (``jack_on_small_pile``),
    the card's points (``exposed_point_card``), the best card's capture (``captures``)."""
    reason: Reason | None = None
    """Why the best card is better (``better_card`` only)."""

    def to_json(self) -> dict[str, Any]:
        """The verdict as JSON."""
        return {"kind": self.kind.value, "card": str(self.card), "better": str(self.better),
                "loss": round(self.loss, 3), "worth": self.worth,
                "reason": None if self.reason is None else self.reason.value}


def judge(view: View, card: Card, values: Sequence[tuple[Card, float]]) -> Verdict | None:
    """The verdict on ``card`` played from ``view``, given each legal card's value from the
    search (``values``, any order): ``None`` when it trails the best by less than :data:`SIGNIFICANT`."""
    if card not in view.hand:
        raise ValueError(f"{card} is not in seat {view.seat}'s hand")
    value = dict(values)
    best = max(values, key=lambda entry: entry[1])[0]
    loss = value[best] - value[card]
    if loss < SIGNIFICANT:
        return None
    position = Position.of(view)
    return _verdict(position, position.play(card), position.play(best), loss)


def _verdict(position: Position, played: Play, best: Play, loss: float) -> Verdict:
    table = position.view.rules.points_table
    card, better = played.card, best.card

    def verdict(kind: Kind, worth: int = 0, reason: Reason | None = None) -> Verdict:
        return Verdict(kind, card, better, loss, worth, reason)

    if best.kseri and not played.kseri:
        return verdict(Kind.MISSED_KSERI, best.worth)
    if position.last_batch and best.captures and better.rank == JACK and card.rank != JACK:
        return verdict(Kind.KEPT_JACK, best.worth)
    if position.last_batch and len(position.view.hand) <= 2 and best.captures and not played.captures:
        return verdict(Kind.LAST_SWEEP, best.worth)
    line = position.majority_line()
    if (position.view.rules.majority_bonus and position.side_cards() + best.cards >= line
            > position.side_cards() + played.cards):
        return verdict(Kind.LOST_MAJORITY, position.view.rules.majority_bonus)
    if played.by_jack and played.worth - table[card] <= SMALL_PILE and better.rank != JACK:
        return verdict(Kind.JACK_ON_SMALL_PILE, played.worth - table[card])
    if best.captures and best.worth > played.worth:
        return verdict(Kind.MISSED_CAPTURE, best.worth - played.worth)
    if not played.captures and not position.centre and position.unseen_of(card) > position.unseen_of(better):
        return verdict(Kind.GAVE_KSERI)
    if not played.captures and not best.captures and table[card] > table[better]:
        return verdict(Kind.EXPOSED_POINT_CARD, table[card])
    return verdict(Kind.BETTER_CARD, best.worth, _reason(position, played, best))


def _reason(position: Position, played: Play, best: Play) -> Reason:
    """Why ``best`` beats ``played`` where no named verdict fits."""
    table = position.view.rules.points_table
    if best.captures and (not played.captures or best.cards > played.cards):
        return Reason.CAPTURES
    if played.card.rank == JACK and best.card.rank != JACK:
        return Reason.KEEPS_JACK
    if not best.captures and position.unseen_of(best.card) < position.unseen_of(played.card):
        return Reason.SAFER
    if not best.captures and table[best.card] < table[played.card]:
        return Reason.FEWER_POINTS
    return Reason.LATER


def verdict_text(verdict: Verdict, lang: str = "en") -> str:
    """The verdict as one sentence in ``lang`` (one of :data:`kseri.analysis.texts.LANGUAGES`)."""
    words = texts(lang)
    fields = {"card": verdict.card.pretty(), "better": verdict.better.pretty(), "worth": verdict.worth,
              "loss": f"{verdict.loss:.1f}"}
    text = words[f"verdict.{verdict.kind.value}"].format(**fields)
    if verdict.reason is not None:
        text += " " + words[f"reason.{verdict.reason.value}"].format(**fields)
    return text


__all__ = ["SIGNIFICANT", "SMALL_PILE", "Kind", "Reason", "Verdict", "judge", "verdict_text"]

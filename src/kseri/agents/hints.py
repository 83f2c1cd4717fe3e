"""Hints: every legal play of a view with the master's estimate of its value, best first.

>>> from kseri import Match
>>> match = Match(seed=5)
>>> ranked = hint(match.view(match.turn), iterations=8)
>>> sorted(card for card, _ in ranked) == sorted(match.legal_plays())
True
"""

from __future__ import annotations

from kseri.agents.master import MasterAgent
from kseri.cards import Card
from kseri.engine import View


def hint(view: View, *, iterations: int | None = None, seed: int = 0) -> list[tuple[Card, float]]:
    """Each legal play of ``view`` with its estimated value, best first (the master's order).

    The value is the round's points relative to the opponents (the seat's side less the mean of
    the other sides) that the master expects after that play. ``iterations`` is the master's
    budget in sampled worlds (default its own); the same ``seed`` gives the same hint.
    """
    if view.turn != view.seat:
        raise ValueError(f"no hint: it is not seat {view.seat}'s turn")
    master = MasterAgent(seed=seed, iterations=iterations)
    return [(card, points) for card, points, _ in master.evaluate(view)]

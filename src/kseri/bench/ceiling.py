"""The perfect-information ceiling: the master's search given the true placement of every card.

No player can see the others' hands, so this is no level: it exists only here, where the bench
deals the cards and knows them. :class:`CeilingBot` runs the master's very search
(:meth:`kseri.agents.master.MasterAgent.search`) on the one true world instead of sampled
ones: the same rollouts, the exact endgame on the true hands. Set against the expert on the
same duplicate deals as the master, it measures how far the master stands from what its search
could do without hidden information.

>>> from kseri import Rules
>>> from kseri.agents import make_agent
>>> from kseri.bench.duplicate import bench_deal
>>> rules = Rules.preset("greek")
>>> diff = ceiling_duplicate_round(rules, bench_deal(rules, "doc", 0), make_agent("expert"))
>>> isinstance(diff, float)
True
"""

from __future__ import annotations

import random

import numpy as np
from numpy.typing import NDArray

from kseri.agents.base import Agent
from kseri.agents.master import MasterAgent
from kseri.agents.sampler import Sampler
from kseri.bench.duplicate import seating, side_difference
from kseri.cards import Card
from kseri.engine import Deal, Match, View
from kseri.rules import Rules


def true_pool(view: View, deal: Deal, sampler: Sampler) -> NDArray[np.int8]:
    """The unseen cards of ``view`` in :meth:`Sampler.world`'s order, as ``deal`` placed them:
    the face-down centre cards, the other hands by seat, then the stock."""
    rules = view.rules
    per_batch = rules.players * rules.batch_size
    batch = len(view.plays) // per_batch
    played = {play.card for play in view.plays[batch * per_batch:]}
    unseen = set(sampler.unseen)
    order = list(deal.centre[: view.centre_dealt.count(None)])
    order += [card for seat in range(rules.players) for card in deal.hands[batch][seat] if card not in played]
    for later in deal.hands[batch + 1:]:
        for position in range(rules.players):
            order += later[(deal.dealer + 1 + position) % rules.players]
    return np.array([[card for card in order if card in unseen]], np.int8)


class CeilingBot:
    """The master's search on the true world, rolled out ``iterations`` times (one is enough where
    every other player is read as the expert or greedy: those rollouts are deterministic)."""

    name = "ceiling"

    def __init__(self, seed: int = 0, iterations: int = 1) -> None:
        self.master = MasterAgent(seed=seed, iterations=iterations)

    def choose(self, view: View, deal: Deal) -> Card:
        """The best play of ``view`` when every card of ``deal`` is known."""
        sampler = self.master.sampler(view)
        pool = true_pool(view, deal, sampler)

        def draw(rng: random.Random, count: int) -> NDArray[np.int8]:
            del rng
            return np.repeat(pool, count, axis=0)

        return self.master.search(view, sampler, draw)[0][0]


def ceiling_duplicate_round(rules: Rules, deal: Deal, opponent: Agent, seed: int = 0,
                            iterations: int = 1) -> float:
    """:func:`~kseri.bench.duplicate.duplicate_round` of the ceiling against ``opponent``: its
    mean point difference per round over the seat rotations."""
    bot = CeilingBot(seed, iterations)
    total = 0.0
    for rotation in range(rules.sides):
        seats = seating(rules, rotation)
        match = Match(rules, deal=deal)
        while (seat := match.turn) is not None:
            view = match.view(seat)
            match.play(bot.choose(view, deal) if seats[seat] == 0 else opponent.choose(view))
        total += side_difference(match.round_results[-1].points, rotation)
    return total / rules.sides


__all__ = ["CeilingBot", "ceiling_duplicate_round", "true_pool"]

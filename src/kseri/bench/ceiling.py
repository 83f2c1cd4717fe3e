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

from kseri.agents.base import Agent
from kseri.agents.master import MasterAgent
from kseri.agents.sampler import World
from kseri.bench.duplicate import seating, side_difference
from kseri.cards import Card
from kseri.engine import Deal, Match, View
from kseri.rules import Rules


def true_world(view: View, deal: Deal) -> World:
    """The placement of the cards ``view`` does not show, read from the ``deal`` it comes from."""
    rules = view.rules
    per_batch = rules.players * rules.batch_size
    batch = len(view.plays) // per_batch
    played = [play.card for play in view.plays[batch * per_batch:]]
    hands = tuple(tuple(card for card in deal.hands[batch][seat] if card not in played)
                  for seat in range(rules.players))
    face_down = deal.centre[: view.centre_dealt.count(None)]
    return World(hands, deal.hands[batch + 1:], face_down)


class CeilingBot:
    """The master's search on the true world (one world: the rollouts are deterministic)."""

    name = "ceiling"

    def __init__(self, seed: int = 0) -> None:
        self.master = MasterAgent(seed=seed, iterations=1)

    def choose(self, view: View, deal: Deal) -> Card:
        """The best play of ``view`` when every card of ``deal`` is known."""
        world = true_world(view, deal)

        def draw(rng: random.Random, count: int) -> list[World]:
            del rng
            return [world] * count

        return self.master.search(view, self.master.sampler(view), draw)[0][0]


def ceiling_duplicate_round(rules: Rules, deal: Deal, opponent: Agent, seed: int = 0) -> float:
    """:func:`~kseri.bench.duplicate.duplicate_round` of the ceiling against ``opponent``: its
    mean point difference per round over the seat rotations."""
    bot = CeilingBot(seed)
    total = 0.0
    for rotation in range(rules.sides):
        seats = seating(rules, rotation)
        match = Match(rules, deal=deal)
        while (seat := match.turn) is not None:
            view = match.view(seat)
            match.play(bot.choose(view, deal) if seats[seat] == 0 else opponent.choose(view))
        total += side_difference(match.round_results[-1].points, rotation)
    return total / rules.sides


__all__ = ["CeilingBot", "ceiling_duplicate_round", "true_world"]

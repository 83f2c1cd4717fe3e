"""Duplicate deals: each deal is played again with the seats rotated, so luck cancels.

>>> from kseri import Rules
>>> from kseri.agents import make_agent
>>> rules = Rules.preset("greek")
>>> pair = [make_agent("greedy"), make_agent("random", seed=1)]
>>> diff = duplicate_round(rules, bench_deal(rules, seed=1, index=0), pair)
>>> isinstance(diff, float)
True
"""

from __future__ import annotations

from collections.abc import Sequence

from kseri.agents.base import Agent
from kseri.engine import Deal, Match, RoundResult
from kseri.rules import Rules


def bench_deal(rules: Rules, seed: int | str, index: int) -> Deal:
    """The ``index``-th deal of a bench series, reproducible from ``seed``."""
    return Deal.shuffle(rules, index % rules.players, f"bench:{seed}:{index}")


def play_round(rules: Rules, deal: Deal, agents: Sequence[Agent]) -> RoundResult:
    """Play one round from ``deal`` with ``agents[seat]`` at each seat; each sees only its view."""
    if len(agents) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} agents, not {len(agents)}")
    match = Match(rules, deal=deal)
    while (seat := match.turn) is not None:
        match.play(agents[seat].choose(match.view(seat)))
    return match.round_results[-1]


def play_match(match: Match, agents: Sequence[Agent]) -> Match:
    """Play ``match`` to its winner with ``agents[seat]`` at each seat; each sees only its view."""
    while True:
        while (seat := match.turn) is not None:
            match.play(agents[seat].choose(match.view(seat)))
        if match.is_over():
            return match
        match.next_round()


def seating(rules: Rules, rotation: int) -> tuple[int, ...]:
    """Which member of a pair sits at each seat in ``rotation`` (0 to ``rules.sides - 1``):
    the first (0) holds the seats of side ``rotation``, the second (1) every other seat."""
    return tuple(0 if rules.side_of(seat) == rotation else 1 for seat in range(rules.players))


def side_difference(points: Sequence[int], side: int) -> float:
    """``side``'s points less the mean of the other sides' points."""
    others = [p for other, p in enumerate(points) if other != side]
    return points[side] - sum(others) / len(others)


def duplicate_round(rules: Rules, deal: Deal, pair: Sequence[Agent]) -> float:
    """Mean point difference per round of ``pair[0]`` over ``pair[1]`` on one deal.

    The deal is played once per rotation of the seats (:func:`seating`); the result is the
    first agent's side points less the mean of the other sides', averaged over the rotations.
    """
    total = 0.0
    for rotation in range(rules.sides):
        agents = [pair[member] for member in seating(rules, rotation)]
        total += side_difference(play_round(rules, deal, agents).points, rotation)
    return total / rules.sides

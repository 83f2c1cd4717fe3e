"""The one search behind hints, the review, puzzles and odds, seen from the analysis: the master's
values world by world, with an interval between the best card and the next, and the exact endgame solver's
values where the view leaves a single world (no guess left to make).

Both read the seat's view only (:class:`kseri.agents.sampler.Sampler` places the unseen cards
consistently with it); they wrap the agents' public functions and change nothing in them.

>>> from kseri import Match
>>> match = Match(seed=5)
>>> ranking = rank(match.view(match.turn), worlds=8)
>>> ranking.exact, len(ranking.values) == len(match.view(match.turn).hand)
(False, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

import numpy as np
from numpy.typing import NDArray

from kseri.agents.endgame import solve
from kseri.agents.master import MasterAgent
from kseri.agents.sampler import Sampler
from kseri.agents.sim import RoundSim, play_class
from kseri.bench.stats import Interval, mean_interval
from kseri.cards import Card
from kseri.engine import View

WORLDS = 96
"""Worlds over which a card's lead over the next is measured, with its interval."""


@dataclass(frozen=True, slots=True)
class Ranking:
    """Every legal card of a view with its value (round points relative to the opponents), best
    first, and how surely the best beats the next best kind of card."""

    values: tuple[tuple[Card, float], ...]
    gap: Interval
    """The best card's lead over the best card of another kind (exact: its bounds equal it)."""
    exact: bool
    """Whether the values are the exact solver's on the only world the view leaves."""

    @property
    def best(self) -> Card:
        """The best card."""
        return self.values[0][0]

    def equivalents(self, view: View) -> tuple[Card, ...]:
        """The cards of the hand interchangeable with the best (3♠ and 3♥ in the Greek game)."""
        table = view.rules.points_table
        kind = play_class(self.best, table)
        return tuple(card for card in view.hand if play_class(card, table) == kind)


def single_world(view: View) -> RoundSim | None:
    """The round as it truly stands when the view leaves only one placement of the unseen cards
    that matters (the stock empty and every unseen card in one opponent's hand), else ``None``."""
    if view.turn != view.seat or view.stock_size:
        return None
    sampler = Sampler(view)
    holders = [seat for seat, size in enumerate(view.hand_sizes) if seat != view.seat and size]
    if sampler.unseen and (len(holders) > 1 or sampler.face_down_unknown):
        return None
    return sampler.sim(sampler.world([int(card) for card in sampler.unseen]))


def exact_values(view: View) -> list[tuple[Card, float]] | None:
    """Each legal card's exact value by the endgame solver when :func:`single_world` holds, best first."""
    world = single_world(view)
    if world is None:
        return None
    table = view.rules.points_table
    solved = {play_class(card, table): value for card, value in solve(world, view.side).items()}
    ranked = [(card, solved[play_class(card, table)]) for card in view.hand]
    ranked.sort(key=lambda entry: -entry[1])
    return ranked


def lead(values: Sequence[tuple[Card, float]], table: Sequence[int]) -> float:
    """The best card's lead over the best card of another kind (0 when every card is alike)."""
    kind = play_class(values[0][0], table)
    return next((values[0][1] - value for card, value in values if play_class(card, table) != kind), 0.0)


def glance(view: View, *, iterations: int, seed: int = 0) -> Ranking:
    """A quick ranking: the exact one where the view leaves one world, else one master search of
    ``iterations`` worlds (its gap without bounds)."""
    exact = _exact_ranking(view)
    if exact is not None:
        return exact
    master = MasterAgent(seed=seed, iterations=iterations)
    values = [(card, points) for card, points, _ in master.evaluate(view)]
    return Ranking(tuple(values), Interval(lead(values, view.rules.points_table), None, None), False)


def _exact_ranking(view: View) -> Ranking | None:
    """The exact ranking where the view leaves one world (its gap's bounds equal the gap)."""
    exact = exact_values(view)
    if exact is None:
        return None
    gap = lead(exact, view.rules.points_table)
    return Ranking(tuple(exact), Interval(gap, gap, gap), True)


def world_values(view: View, *, worlds: int = WORLDS, seed: int = 0) -> list[dict[Card, float]]:
    """Each legal card's value (round points relative to the opponents) in each of ``worlds`` worlds
    the master samples for ``view``: its own search (:meth:`MasterAgent.search`, rollouts or exact
    endgames) run on one world at a time, so that nothing is pruned and every card is measured on
    the same worlds."""
    master = MasterAgent(seed=seed, iterations=1)
    sampler = master.sampler(view)
    pools = sampler.pools(random.Random(f"analysis:{seed}"), worlds)
    values = []
    for row in pools:
        def draw(_rng: random.Random, count: int, row: NDArray[np.int8] = row) -> NDArray[np.int8]:
            return np.repeat(row[None, :], count, axis=0)

        values.append({card: points for card, points, _ in master.search(view, sampler, draw)})
    return values


def rank(view: View, *, worlds: int = WORLDS, seed: int = 0) -> Ranking:
    """The cards of ``view`` ranked: exactly when the view leaves one world, else by their mean
    value over ``worlds`` of the master's worlds (:func:`world_values`); the gap's interval is
    Student's t over the worlds' differences between the best card and the next kind of card."""
    if view.turn != view.seat:
        raise ValueError(f"nothing to rank: it is not seat {view.seat}'s turn")
    exact = _exact_ranking(view)
    if exact is not None:
        return exact
    if worlds < 2:
        raise ValueError(f"an interval needs at least 2 worlds, not {worlds}")
    per_world = world_values(view, worlds=worlds, seed=seed)
    means = [(card, fmean(world[card] for world in per_world)) for card in view.hand]
    means.sort(key=lambda entry: -entry[1])
    table = view.rules.points_table
    best = means[0][0]
    kind = play_class(best, table)
    second = next((card for card, _ in means if play_class(card, table) != kind), None)
    gaps = [0.0] * worlds if second is None else [world[best] - world[second] for world in per_world]
    return Ranking(tuple(means), mean_interval(gaps), False)


__all__ = ["WORLDS", "Ranking", "exact_values", "glance", "lead", "rank", "single_world",
           "world_values"]

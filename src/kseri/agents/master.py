"""The ``master`` level: determinized search over worlds consistent with the view.

For each move it samples the hidden cards many times (:mod:`kseri.agents.sampler`: every world
agrees with the view, drawn in proportion to how well it explains the others' plays of this
batch under an opponent model, :mod:`kseri.fast.sampling`), plays each distinct card in every
world and plays on, to the round's end with small batches (:data:`ROLLOUT_TO_END_BATCH`) or to
the batch's end, with the expert's policy from public memory for its own seat and for each other
seat the style the opponent model reads there (random, greedy, the expert or a loose expert
that slips, drawn per world from what the player's plays of the round and of the match's earlier
rounds tell: :meth:`MasterAgent.recall`), and picks the card
with the best mean (rolled out to the round's end, a move still contested plays more worlds:
:data:`CONTESTED_FACTOR`). The rollouts run on the compiled core (:func:`kseri.fast.rollouts`, the
compiled play step and policies), a chunk of worlds at a time up to each pruning. Once the stock
is empty and few cards remain, against players read as experts, each world is solved exactly
instead (:mod:`kseri.agents.endgame`); when the view leaves one world only (two players, last
batch) that solve is the truth.

The objective is the round's points relative to the opponents; when a side may reach the
target this round, winning the match counts :data:`MATCH_WEIGHT` points more (the Greek +100
escalation included).

>>> from kseri import Match
>>> match = Match(seed=5)
>>> bot = MasterAgent(seed=1, iterations=8)
>>> bot.choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from statistics import fmean

import numpy as np
from numpy.typing import NDArray

from kseri.agents.base import AGENTS
from kseri.agents.endgame import play_class, relative, solve
from kseri.agents.sampler import Sampler
from kseri.cards import Card
from kseri.engine import View
from kseri.rules import match_winner

DEFAULT_ITERATIONS = 320
"""Worlds sampled per move by default (each plays out every distinct card)."""
SOLVE_CARDS = 16
"""The stock empty and at most this many cards in hands: solve each world exactly, where every
other player is read as an expert (the solve assumes the best replies; against a player read as
greedy or random the rollouts with that style play the end instead: on the bench, +3.7 and +2.4
points a round in the Greek game)."""
SOLVED_WORLDS = 12
"""Worlds solved per move in the endgame when the view leaves more than one."""
PRUNE_EVERY = 16
"""Worlds between checks that drop the candidates clearly worse than the best."""
PRUNE_Z = 2.5
"""Standard errors by which a candidate must trail the best to be dropped."""
DEADLINE_CHUNK = 4
"""Worlds rolled out together under a time budget (the clock is read between chunks)."""
ROLLOUT_TO_END_BATCH = 4
"""Rules dealing at most this many cards a seat a batch roll out to the round's end (on the
bench: Pisti +0.9 points a round better than stopping at the batch's end); larger batches stop
there (Greek: 1.9 points better than rolling on to the end)."""
CONTESTED_FACTOR = 2
"""Where the rollouts run to the round's end (their points vary the most), a move whose
candidates are not yet told apart after its worlds (more than one left within
:data:`PRUNE_Z` standard errors of the best) plays on with its two best up to this many times
as many worlds."""
MATCH_WEIGHT = 100.0
"""Extra value of winning the match this round (and cost of losing it)."""
MATCH_REACH = 60
"""A side this close to the target may reach it this round: the match objective applies."""


def play_classes(cards: Sequence[Card], table: Sequence[int]) -> dict[tuple[int, int, bool], Card]:
    """One card per class of interchangeable plays (:func:`~kseri.agents.endgame.play_class`)."""
    representatives: dict[tuple[int, int, bool], Card] = {}
    for card in cards:
        representatives.setdefault(play_class(card, table), card)
    return representatives


class MasterAgent:
    """Determinized search: sampled worlds, rollouts with each player's read style, exact endgames.

    ``iterations`` worlds per move (default :data:`DEFAULT_ITERATIONS`; a contested move in rules
    rolled out to the round's end up to :data:`CONTESTED_FACTOR` times as many), or as many as
    fit in ``time_ms``; with ``iterations`` the same ``seed`` always gives the same choice.
    """

    name = "master"

    def __init__(self, seed: int | None = None, *, iterations: int | None = None,
                 time_ms: float | None = None) -> None:
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        if time_ms is not None and time_ms <= 0:
            raise ValueError(f"time_ms must be positive, not {time_ms}")
        self.seed = seed if seed is not None else 0
        self.iterations = iterations if iterations is not None or time_ms is not None else DEFAULT_ITERATIONS
        self.time_ms = time_ms
        self.last_worlds = 0
        """Worlds the last search played out or solved (a figure for the benchmarks)."""
        self.earlier: NDArray[np.float64] | None = None
        """What the match's earlier rounds told of each other player's style: per seat counted
        from this one (0: itself), the summed :attr:`Sampler.evidence` of the last view of each
        round (:meth:`recall`; ``None``: none yet)."""
        self._latest: View | None = None

    def recall(self, view: View) -> None:
        """Take in what the last view of an earlier round of the match tells of the other
        players' styles (the plays of its batches played out). The agent recalls the last view it
        was asked about in each round by itself (:meth:`choose`, :meth:`evaluate`); a server that
        builds an agent for each play hands it those views instead."""
        read = np.roll(Sampler(view).evidence, -view.seat, axis=0)
        self.earlier = read if self.earlier is None else self.earlier + read

    def sampler(self, view: View) -> Sampler:
        """The worlds consistent with ``view``, the styles read with what the match's earlier
        rounds told (:attr:`earlier`)."""
        return Sampler(view, None if self.earlier is None else np.roll(self.earlier, view.seat, axis=0))

    def evaluate(self, view: View) -> list[tuple[Card, float, float]]:
        """Each legal play with its mean round points relative to the opponents and its mean
        value under the objective (the points, plus the match near the target), best first.
        Equivalent cards share their class's figures."""
        if view.turn != view.seat:
            raise ValueError(f"nothing to evaluate: it is not seat {view.seat}'s turn")
        self._follow(view)
        sampler = self.sampler(view)
        return self.search(view, sampler, sampler.pools)

    def search(self, view: View, sampler: Sampler, draw: Callable[[random.Random, int], NDArray[np.int8]],
               ) -> list[tuple[Card, float, float]]:
        """:meth:`evaluate` over the worlds ``draw(rng, count)`` places (rows of unseen cards in
        :meth:`Sampler.world`'s order): the sampler's (every real player), or the true one where
        the bench measures the perfect-information ceiling."""
        from kseri.fast import rollouts  # numba loads with the first search, not with the agents
        rules = view.rules
        table = rules.points_table
        classes = play_classes(view.hand, table)
        candidates = list(classes.values())
        rng = random.Random(f"{self.seed}:{view.round_index}:{len(view.plays)}:{view.seat}")
        to_end = rules.batch_size <= ROLLOUT_TO_END_BATCH
        near_target = max(view.totals) + MATCH_REACH >= view.target
        side = view.side
        points: dict[Card, list[float]] = {card: [] for card in candidates}
        values: dict[Card, list[float]] = {card: [] for card in candidates}
        active = candidates
        worlds = 0
        endgame = (view.stock_size == 0 and sum(view.hand_sizes) <= SOLVE_CARDS
                   and sampler.all_read_as_expert())
        budget: int | None
        if endgame:
            budget = 1 if _one_world(view, sampler) else SOLVED_WORLDS
            if self.iterations is not None:
                budget = min(budget, self.iterations)
            deadline = None
        else:
            budget = self.iterations
            deadline = None if self.time_ms is None else time.perf_counter() + self.time_ms / 1000
        contested = 0 if budget is None else budget * (CONTESTED_FACTOR if to_end and not endgame else 1)
        while ((budget is None or worlds < budget or (len(active) > 1 and worlds < contested))
               and (deadline is None or worlds == 0 or time.perf_counter() < deadline)):
            if endgame:
                world = sampler.states(draw(rng, 1))[0]
                worlds += 1
                solved = {play_class(c, table): v for c, v in solve(rules, world, side).items()}
                for key, card in classes.items():
                    value = solved[key]
                    points[card].append(value)
                    values[card].append(value)
                continue
            # the worlds up to the next pruning, rolled out together on the compiled core
            chunk = PRUNE_EVERY - worlds % PRUNE_EVERY
            if budget is not None:
                chunk = min(chunk, (budget if worlds < budget else contested) - worlds)
            if deadline is not None:
                chunk = min(chunk, DEADLINE_CHUNK)
            worlds += chunk
            pools = draw(rng, chunk)
            finals, overs = rollouts(rules, sampler.positions(pools), active, to_end=to_end,
                                     policies=sampler.opponents(rng, pools), seed=rng.getrandbits(64))
            for world_finals, over in zip(finals.tolist(), overs.tolist(), strict=True):
                for card, final in zip(active, world_finals, strict=True):
                    relative_points = relative(final, side)
                    value = relative_points
                    if near_target and over:
                        after = [total + gained for total, gained in zip(view.totals, final, strict=True)]
                        winner, _ = match_winner(rules, after, view.target)
                        if winner is not None:
                            value += MATCH_WEIGHT if winner == side else -MATCH_WEIGHT
                    points[card].append(relative_points)
                    values[card].append(value)
            if worlds % PRUNE_EVERY == 0:
                active = _prune(active, values)
                if budget is not None and worlds >= budget and len(active) > 2:
                    # past its worlds a contested move settles between its two best
                    active = sorted(active, key=lambda card: -fmean(values[card]))[:2]
                if len(active) == 1:
                    break
        self.last_worlds = worlds
        means = {card: (fmean(points[card]), fmean(values[card])) for card in candidates}
        ranked = []
        for card in view.hand:
            ranked.append((card, *means[classes[play_class(card, table)]]))
        ranked.sort(key=lambda entry: (-entry[2], -entry[1]))
        return ranked

    def choose(self, view: View) -> Card:
        """The play with the best mean value."""
        if len(play_classes(view.hand, view.rules.points_table)) == 1:
            self._follow(view)
            return view.hand[0]
        return self.evaluate(view)[0][0]

    def _follow(self, view: View) -> None:
        """Note the view asked about; a view of a new round first recalls the last one of the
        round before."""
        if self._latest is not None and not _continues(self._latest, view):
            self.recall(self._latest)
        self._latest = view


def _prune(active: list[Card], values: dict[Card, list[float]]) -> list[Card]:
    """The candidates not clearly worse than the best so far: each is compared with the best on
    the same worlds and dropped when the mean difference exceeds :data:`PRUNE_Z` standard errors."""
    best = max(active, key=lambda card: fmean(values[card]))
    kept = [best]
    top = np.array(values[best])
    for card in active:
        if card == best:
            continue
        differences = top - np.array(values[card])
        spread = float(differences.std(ddof=1))
        if float(differences.mean()) <= PRUNE_Z * spread / len(differences) ** 0.5:
            kept.append(card)
    return kept


def _continues(before: View, now: View) -> bool:
    """Whether ``now`` is a later moment of the round ``before`` was seen in."""
    return (now.round_index == before.round_index and now.dealer == before.dealer
            and now.centre_dealt == before.centre_dealt and len(now.plays) >= len(before.plays)
            and now.plays[: len(before.plays)] == before.plays)


def _one_world(view: View, sampler: Sampler) -> bool:
    """Whether the view leaves a single placement of the hidden cards that matters."""
    places = sum(1 for seat, size in enumerate(view.hand_sizes) if seat != view.seat and size)
    return not sampler.unseen or (places <= 1 and not sampler.face_down_unknown)


AGENTS["master"] = MasterAgent

__all__ = ["CONTESTED_FACTOR", "DEFAULT_ITERATIONS", "MasterAgent", "play_classes"]

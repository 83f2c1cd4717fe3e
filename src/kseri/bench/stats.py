"""Statistics for the bench: confidence intervals and Bradley-Terry ratings with bootstrap intervals.

>>> round(t_quantile(0.975, 9), 4)
2.2622
>>> interval = mean_interval([1.0, 2.0, 3.0, 4.0])
>>> interval.estimate, round(interval.low, 3), round(interval.high, 3)
(2.5, 0.446, 4.554)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean, stdev
from typing import Final

ELO_SCALE: Final = 400 / math.log(10)
"""Natural-log strength to Elo points: a 400-point gap means odds of 10 to 1."""

_LARGE_DF: Final = 10_000
"""Above this many degrees of freedom the t distribution is taken as normal (error < 1e-4)."""


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate with the bounds of its confidence interval (``None``: too little data)."""

    estimate: float
    low: float | None
    high: float | None


Game = tuple[int, int, float]
"""One result: player ``i``, player ``j``, and ``i``'s score (1 win, 0.5 draw, 0 loss)."""


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with integer ``df`` (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2:
        term = series = 0.0 if df == 1 else math.cos(theta)
        for k in range(1, (df - 1) // 2):
            term *= cos2 * (2 * k) / (2 * k + 1)
            series += term
        return 2 / math.pi * (theta + sin * series)
    term = series = 1.0
    for k in range(1, df // 2):
        term *= cos2 * (2 * k - 1) / (2 * k)
        series += term
    return sin * series


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (``0.5 < p < 1``) of Student's t distribution with ``df`` degrees of freedom."""
    if not 0.5 < p < 1 or df < 1:
        raise ValueError(f"t_quantile needs 0.5 < p < 1 and df >= 1, not p={p}, df={df}")
    if df > _LARGE_DF:
        return NormalDist().inv_cdf(p)
    inside = 2 * p - 1
    low, high = 0.0, 1.0
    while _t_two_sided(high, df) < inside:
        low, high = high, high * 2
    for _ in range(100):
        middle = (low + high) / 2
        if _t_two_sided(middle, df) < inside:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """The mean of ``values`` with its Student-t confidence interval (no bounds below 2 values)."""
    if not values:
        raise ValueError("the mean of no values is undefined")
    mean = fmean(values)
    if len(values) < 2:
        return Interval(mean, None, None)
    half = t_quantile((1 + confidence) / 2, len(values) - 1) * stdev(values, mean) / math.sqrt(len(values))
    return Interval(mean, mean - half, mean + half)


def wilson_interval(score: float, games: int, confidence: float = 0.95) -> Interval:
    """A win rate (``score`` points in ``games``, draws counting half) with its Wilson score interval."""
    if games < 1:
        raise ValueError("a win rate needs at least one game")
    if not 0 <= score <= games:
        raise ValueError(f"a score of {score} is impossible in {games} games")
    rate = score / games
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return Interval(rate, max(0.0, centre - half), min(1.0, centre + half))


def bradley_terry(players: int, games: Sequence[Game], prior: float = 0.5) -> list[float]:
    """Bradley-Terry ratings on the Elo scale (mean 0), fitted by Hunter's MM algorithm.

    ``prior`` adds that many virtual wins to each side of every pair that played, so a player
    who won every game still gets a finite rating.
    """
    wins = [0.0] * players
    played: dict[tuple[int, int], float] = {}
    for i, j, score in games:
        if i == j or not (0 <= i < players and 0 <= j < players):
            raise ValueError(f"a game needs two different players of 0..{players - 1}, not {i} and {j}")
        wins[i] += score
        wins[j] += 1 - score
        key = (min(i, j), max(i, j))
        played[key] = played.get(key, 0.0) + 1
    for (i, j), count in list(played.items()):
        wins[i] += prior
        wins[j] += prior
        played[(i, j)] = count + 2 * prior
    strength = [1.0] * players
    for _ in range(10_000):
        denominators = [0.0] * players
        for (i, j), count in played.items():
            share = count / (strength[i] + strength[j])
            denominators[i] += share
            denominators[j] += share
        new = [wins[p] / denominators[p] if denominators[p] else 1.0 for p in range(players)]
        centre = fmean(math.log(s) for s in new)
        new = [s / math.exp(centre) for s in new]
        change = max(abs(math.log(a / b)) for a, b in zip(new, strength, strict=True))
        strength = new
        if change < 1e-10:
            break
    return [ELO_SCALE * math.log(s) for s in strength]


def bootstrap_ratings(
    players: int, games_by_pair: Sequence[Sequence[Game]], samples: int = 200, seed: int = 0,
    confidence: float = 0.95, prior: float = 0.5,
) -> list[Interval]:
    """Bradley-Terry ratings with percentile bootstrap intervals: each sample redraws every
    pair's games with replacement and fits again (reproducible from ``seed``)."""
    games = [game for pair in games_by_pair for game in pair]
    estimates = bradley_terry(players, games, prior)
    rng = random.Random(seed)
    draws: list[list[float]] = [[] for _ in range(players)]
    for _ in range(samples):
        sample = [rng.choice(pair) for pair in games_by_pair if pair for _ in pair]
        for player, rating in enumerate(bradley_terry(players, sample, prior)):
            draws[player].append(rating)
    tail = (1 - confidence) / 2
    intervals = []
    for player, estimate in enumerate(estimates):
        ordered = sorted(draws[player])
        if not ordered:
            intervals.append(Interval(estimate, None, None))
            continue
        low = ordered[min(len(ordered) - 1, int(tail * len(ordered)))]
        high = ordered[max(0, math.ceil((1 - tail) * len(ordered)) - 1)]
        intervals.append(Interval(estimate, low, high))
    return intervals

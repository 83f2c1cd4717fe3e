"""A level that picks by a softmax over its own values, and the dialled expert: standard
library only, so the browser's offline engine can play the ladder's rungs (:mod:`kseri.offline`).

:class:`Tempered` asks a level for each legal play's value in points and draws a play with
probability proportional to ``exp(value / temperature)``: at temperature 0 it is the level
itself, the larger the temperature the likelier a play that the level rates worse, and a cheap
mistake is always likelier than a costly one. A strength between 0 (uniformly random plays) and
1 (the level itself) sets the temperature: ``temperature = STRENGTH_SCALE * (1 / s - 1)``
points (:func:`temperature_for`). The strength dial (:mod:`kseri.agents.strength`) and the
ladder (:mod:`kseri.agents.ladder`) are built on it.

The draw is seeded by the seed and the position (round, play number, seat), so the choice is a
function of the seed and the view alone, like the master's.

>>> from kseri import Match
>>> match = Match(seed=5)
>>> bot = dialled_expert(seed=3, strength=0.5)
>>> bot.choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from kseri.agents.base import Agent
from kseri.agents.expert import ExpertAgent
from kseri.cards import Card
from kseri.engine import View

STRENGTH_SCALE = 2.0
"""Points of temperature at strength 1/2 (:func:`temperature_for`)."""

Values = Callable[[View], Sequence[tuple[Card, float]]]
"""Each legal play of a view with its value in points."""


def temperature_for(strength: float) -> float:
    """The softmax temperature in points of ``strength`` (1: 0, the level itself; 0: infinite,
    uniformly random); a strength outside 0 to 1 is refused."""
    if not 0.0 <= strength <= 1.0 or math.isnan(strength):
        raise ValueError(f"strength must be between 0 (random) and 1 (the level itself), not {strength}")
    return math.inf if strength == 0 else STRENGTH_SCALE * (1 / strength - 1)


def softmax_pick(valued: Sequence[tuple[Card, float]], temperature: float, draw: float) -> Card:
    """The play that ``draw`` (uniform in [0, 1)) selects from a softmax over the values at
    ``temperature`` (0: the first best; infinite: uniform)."""
    if not valued:
        raise ValueError("no play to pick from")
    if temperature == 0:
        return max(valued, key=lambda pair: pair[1])[0]
    if math.isinf(temperature):
        weights = [1.0] * len(valued)
    else:
        top = max(value for _, value in valued)
        weights = [math.exp((value - top) / temperature) for _, value in valued]
    threshold = draw * sum(weights)
    for (card, _), weight in zip(valued, weights, strict=True):
        threshold -= weight
        if threshold < 0:
            return card
    return valued[-1][0]


class Tempered:
    """A level whose play is drawn by a softmax over its values at ``temperature`` points."""

    def __init__(self, name: str, values: Values, temperature: float, seed: int | None = None) -> None:
        if not temperature >= 0:
            raise ValueError(f"temperature must be 0 or more points, not {temperature}")
        self.name = name
        self.temperature = temperature
        self.seed = seed if seed is not None else 0
        self._values = values

    def choose(self, view: View) -> Card:
        """A legal play drawn from the softmax over the level's values."""
        legal = view.legal_plays()
        if len(legal) == 1:
            return legal[0]
        position = f"{self.seed}:tempered:{view.round_index}:{len(view.plays)}:{view.seat}"
        draw = random.Random(position).random()
        return softmax_pick(self._values(view), self.temperature, draw)


def expert_values(expert: ExpertAgent) -> Values:
    """The expert's value of each legal play (:meth:`ExpertAgent.ranked`)."""
    return expert.ranked


def dialled_expert(seed: int | None = None, *, strength: float, name: str | None = None) -> Agent:
    """The expert at ``strength`` (1: the expert itself), called ``name`` (by default
    ``expert@STRENGTH``)."""
    if strength == 1:
        return ExpertAgent(seed=seed)
    name = name or f"expert@{strength:g}"
    return Tempered(name, expert_values(ExpertAgent()), temperature_for(strength), seed)


__all__ = ["STRENGTH_SCALE", "Tempered", "Values", "dialled_expert", "expert_values", "softmax_pick",
           "temperature_for"]

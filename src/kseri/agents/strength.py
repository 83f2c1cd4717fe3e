"""The strength dial: a level that picks by a softmax over its own values instead of the best.

``make_agent(level, strength=s)`` builds the expert or the master as a
:class:`~kseri.agents.tempered.Tempered` level: a softmax over the level's values in points (the
expert's :meth:`~kseri.agents.expert.ExpertAgent.ranked`, the master's
:meth:`~kseri.agents.master.MasterAgent.evaluate`) at ``temperature = STRENGTH_SCALE * (1 / s - 1)``
points (:func:`~kseri.agents.tempered.temperature_for`): strength 1 is the level itself, 0 a
uniformly random legal card. The softmax and the dialled expert live in
:mod:`kseri.agents.tempered` (standard library only); this module adds the master's dial.

>>> from kseri import Match
>>> from kseri.agents import make_agent
>>> match = Match(seed=5)
>>> bot = make_agent("expert", seed=3, strength=0.5)
>>> bot.choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

from typing import Any

from kseri.agents.base import STRENGTH_DIALS, Agent
from kseri.agents.master import MasterAgent
from kseri.agents.tempered import Tempered, Values, dialled_expert, temperature_for
from kseri.cards import Card
from kseri.engine import View


def master_values(master: MasterAgent) -> Values:
    """The master's value of each legal play under its objective (:meth:`MasterAgent.evaluate`)."""
    def values(view: View) -> list[tuple[Card, float]]:
        return [(card, value) for card, _, value in master.evaluate(view)]

    return values


def dialled_master(seed: int | None = None, *, strength: float, **options: Any) -> Agent:
    """The master at ``strength`` (1: the master itself), with the master's own options."""
    master = MasterAgent(seed=seed, **options)
    if strength == 1:
        return master
    return Tempered(f"master@{strength:g}", master_values(master), temperature_for(strength), seed)


STRENGTH_DIALS["expert"] = dialled_expert
STRENGTH_DIALS["master"] = dialled_master

__all__ = ["dialled_master", "master_values"]

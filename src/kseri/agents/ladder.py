"""The ladder: levels people pick by strength, each a known rating on the players' scale.

Its rungs are the expert at a fixed strength (:func:`~kseri.agents.tempered.dialled_expert`,
a softmax over the expert's values), chosen so that on the Greek rules they stand at about
1000, 1200, 1400 and 1600 on the players' rating scale (``docs/bots.md``, "The ladder"); above
them the expert and the master. Each rung is a level like any other in :data:`AGENTS`, so tables,
tournaments, records, ``kseri play``, the server's bot seats and
:func:`~kseri.agents.base.make_agent` take it by name; it is standard library only and
microseconds a move, like the expert. Once the rungs are registered, :data:`AGENTS` lists every
level weakest first (:data:`WEAKEST_FIRST`), as the lobby offers them.

>>> from kseri import Match
>>> from kseri.agents import make_agent
>>> match = Match(seed=5)
>>> bot = make_agent("expert-35", seed=3)
>>> bot.name, bot.choose(match.view(match.turn)) in match.legal_plays()
('expert-35', True)
"""

from __future__ import annotations

from functools import partial
from typing import Final

from kseri.agents.base import AGENTS
from kseri.agents.expert import ExpertAgent
from kseri.agents.tempered import dialled_expert

RUNGS: Final[dict[str, float]] = {"expert-5": 0.05, "expert-18": 0.18, "expert-35": 0.35, "expert-62": 0.62}
"""The dialled rungs by name (the expert at a strength in percent), weakest first, each with its
strength (:func:`~kseri.agents.tempered.temperature_for`)."""

LADDER: Final = (*RUNGS, ExpertAgent.name, "master")
"""The levels people pick by strength, weakest first: the rungs, then the expert and the master."""

WEAKEST_FIRST: Final = ("random", "expert-5", "expert-18", "expert-35", "greedy", "expert-62", "learned",
                        "expert", "master")
"""Every level, weakest first by its rating on the Greek rules (``docs/players.md``)."""


def _list_weakest_first() -> None:
    levels = dict(AGENTS)
    AGENTS.clear()
    AGENTS.update({name: levels.pop(name) for name in WEAKEST_FIRST if name in levels})
    AGENTS.update(levels)  # a level registered elsewhere that the order does not know yet


for _name, _strength in RUNGS.items():
    AGENTS[_name] = partial(dialled_expert, strength=_strength, name=_name)
_list_weakest_first()

__all__ = ["LADDER", "RUNGS", "WEAKEST_FIRST"]

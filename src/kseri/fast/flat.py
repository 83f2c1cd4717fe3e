"""The rules flattened for the compiled core: the one place a :class:`Rules` becomes arrays.

Every compiled path (whole rounds, matches, the master's rollouts, the opponent model, the
learning environments) takes a rule set as one :class:`FlatRules`, built here by
:func:`flatten` and cached per rule set: an ``int64`` array of options indexed by the
constants of :mod:`kseri.fast.kernels` (``options[DOUBLE_KSERI]`` is ``Rules.double_kseri``,
``-1`` for none), the points of each card, the side of each seat, the expert's table of odds
and the weight of one card towards the majority bonus.

>>> from kseri import Rules
>>> from kseri.fast import kernels
>>> flat = flatten(Rules.preset("greek"))
>>> int(flat.options[kernels.JACK_KSERI]), int(flat.table.sum()), flat.side_of.tolist()
(20, 22, [0, 1])
>>> policy_codes(Rules.preset("greek"), ("expert", "random")).tolist()
[2, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Final

import numpy as np
from numpy.typing import NDArray

from kseri.fast import kernels
from kseri.rules import CentreDeal, MajorityTie, Rules, TargetRule

POLICIES: Final = ("random", "greedy", "expert", "given")
"""The policies a seat may follow: the built-in levels' choices, or the cards given (their
codes are the kernels' ``RANDOM``, ``GREEDY``, ``EXPERT`` and ``GIVEN``)."""


@dataclass(frozen=True, slots=True)
class FlatRules:
    """A rule set as the kernels take it."""

    options: NDArray[np.int64]
    """One ``int64`` per option, at the kernels' positions (``kernels.OPTIONS`` of them)."""
    table: NDArray[np.int64]
    """The points of each card number."""
    side_of: NDArray[np.int64]
    """The side of each seat."""
    holds: NDArray[np.float64]
    """``holds[pool, hand, wanted]``: the odds that a hand of ``hand`` unseen cards out of
    ``pool`` holds at least one of ``wanted`` (the expert's card counting)."""
    card_weight: float
    """What one captured card is worth towards the majority bonus."""


@lru_cache(maxsize=64)
def flatten(rules: Rules) -> FlatRules:
    """``rules`` as the kernels take it (cached: equal rule sets share one)."""
    options = np.zeros(kernels.OPTIONS, np.int64)
    centre_deal = {CentreDeal.REDEAL: kernels.REDEAL, CentreDeal.REPLACE_JACKS: kernels.REPLACE_JACKS,
                   CentreDeal.PISTI: kernels.PISTI}[rules.centre_deal]
    pisti = rules.centre_deal is CentreDeal.PISTI
    for index, value in (
        (kernels.PLAYERS, rules.players), (kernels.SIDES, rules.sides), (kernels.BATCHES, rules.batches),
        (kernels.BATCH_SIZE, rules.batch_size), (kernels.CENTRE_SIZE, rules.centre_size),
        (kernels.FACE_DOWN, rules.centre_size - 1 if pisti else 0), (kernels.CENTRE_DEAL, centre_deal),
        (kernels.KSERI, rules.kseri_value),
        (kernels.JACK_KSERI, -1 if rules.jack_kseri is None else rules.jack_kseri),
        (kernels.DOUBLE_KSERI, -1 if rules.double_kseri is None else rules.double_kseri),
        (kernels.LAST_OK, rules.kseri_on_last_card), (kernels.JACKS_WILD, rules.jacks_capture_all),
        (kernels.MAJORITY, rules.majority_bonus),
        (kernels.EVERY_TIED, rules.majority_tie is MajorityTie.EVERY_TIED_SIDE),
        (kernels.JACKS_TABLE, rules.jacks_table_bonus), (kernels.LAST_BONUS, rules.last_capture_bonus),
        (kernels.TWO_CLUBS_BONUS, rules.two_clubs_match_bonus), (kernels.DECK_SIZE, rules.deck_size),
        (kernels.PER_RANK, 4 * rules.decks), (kernels.TARGET, rules.target),
        (kernels.ESCALATION, rules.escalation if rules.target_rule is TargetRule.ESCALATE else 0),
    ):
        options[index] = int(value)
    holds = np.ones((rules.deck_size + 1, rules.batch_size + 1, 8 * rules.decks + 1), np.float64)
    for pool in range(1, rules.deck_size + 1):
        for hand in range(1, min(rules.batch_size, pool) + 1):
            for wanted in range(1, min(8 * rules.decks, pool - 1) + 1):
                holds[pool, hand, wanted] = 1.0 - comb(pool - wanted, hand) / comb(pool, hand)
    return FlatRules(
        options,
        np.array(rules.points_table, np.int64),
        np.array([rules.side_of(seat) for seat in range(rules.players)], np.int64),
        holds,
        rules.majority_bonus / (rules.deck_size / rules.sides),
    )


def policy_codes(rules: Rules, policies: str | Sequence[str]) -> NDArray[np.int64]:
    """The kernels' code of each seat's policy: ``policies`` names one for every seat or one
    per seat (:data:`POLICIES`); a wrong count or an unknown name raises ``ValueError``."""
    names = [policies] * rules.players if isinstance(policies, str) else list(policies)
    if len(names) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} policies, not {len(names)}")
    for name in names:
        if name not in POLICIES:
            raise ValueError(f"unknown policy {name!r}; the policies are: {', '.join(POLICIES)}")
    return np.array([POLICIES.index(name) for name in names], np.int64)


__all__ = ["POLICIES", "FlatRules", "flatten", "policy_codes"]

"""The rules and the round flattened for the compiled core: the one place a :class:`Rules`
becomes arrays, and the one compiled state type.

Every compiled path (whole rounds, matches, the master's rollouts, the opponent model, the
learning environments) takes a rule set as one :class:`FlatRules`, built here by
:func:`flatten` and cached per rule set: an ``int64`` array of options indexed by the
constants below (``options[DOUBLE_KSERI]`` is ``Rules.double_kseri``, ``-1`` for none), the
points of each card, the side of each seat, the expert's table of odds, the weight of one card
towards the majority bonus and the deck's points.

A round in play is one record of :data:`STATE` (:func:`new_states` makes them): the round's
numbers (:data:`NUMBERS`, all ``int64``, first, so that a row of them is an array view), each
side's counts (``per_side[COUNTS, side]`` and the other rows below), the hands, the centre
pile, what every seat has seen, and the deal. Its arrays have the largest shapes the rules
allow, so one compiled step serves every rule set.

>>> from kseri import Rules
>>> flat = flatten(Rules.preset("greek"))
>>> int(flat.options[JACK_KSERI]), int(flat.table.sum()), flat.side_of.tolist()
(20, 22, [0, 1])
>>> policy_codes(Rules.preset("greek"), ("expert", "random")).tolist()
[2, 0]
>>> state = new_states(1)[0]
>>> int(state["turn"]), state["hands"].shape
(0, (6, 52))
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import comb
from typing import Final, NamedTuple

import numpy as np
from numpy.typing import NDArray

from kseri.rules import CentreDeal, MajorityTie, Rules, TargetRule

# -- the options array: one int64 per option, at these positions ------------------------------

PLAYERS: Final = 0
SIDES: Final = 1
BATCHES: Final = 2
BATCH_SIZE: Final = 3
CENTRE_SIZE: Final = 4
FACE_DOWN: Final = 5
CENTRE_DEAL: Final = 6
KSERI: Final = 7
JACK_KSERI: Final = 8
"""-1: a Jack on a lone Jack is an ordinary capture."""
DOUBLE_KSERI: Final = 9
"""-1: off."""
LAST_OK: Final = 10
JACKS_WILD: Final = 11
MAJORITY: Final = 12
EVERY_TIED: Final = 13
JACKS_TABLE: Final = 14
LAST_BONUS: Final = 15
TWO_CLUBS_BONUS: Final = 16
DECK_SIZE: Final = 17
PER_RANK: Final = 18
TARGET: Final = 19
ESCALATION: Final = 20
"""0: the higher total wins."""
OPTIONS: Final = 21

REDEAL: Final = 0
REPLACE_JACKS: Final = 1
PISTI: Final = 2
"""Centre procedures (the ``CENTRE_DEAL`` option)."""

POLICIES: Final = ("random", "greedy", "expert", "loose", "given")
"""The policies a seat may follow: the built-in levels' choices, the expert drawing its play by
a softmax over its ratings (``loose``: :func:`kseri.fast.kernels.loose_choice`), or the cards
given (codes :data:`RANDOM`, :data:`GREEDY`, :data:`EXPERT`, :data:`LOOSE` and :data:`GIVEN`)."""
RANDOM: Final = 0
GREEDY: Final = 1
EXPERT: Final = 2
LOOSE: Final = 3
GIVEN: Final = 4

# -- the state of a round: one record -----------------------------------------------------------

MAX_PLAYERS: Final = 6
MAX_DECK: Final = 104
MAX_HAND: Final = 52
MAX_CENTRE: Final = 8
RANKS: Final = 13
FACES: Final = 52

NUMBERS: Final = (
    "learner", "dealer", "turn", "index", "batch", "pile_len", "pile_points", "pile_plain", "hidden",
    "hidden_points", "first_capturer", "last_capturer", "chain", "public_count", "public_points", "round",
    "goal", "winner", "swept", "done", "memory",
)
"""The round's numbers, in this order at the start of a :data:`STATE` record: the learning seat
(environments), the dealer, the seat to play (-1: the round is over), the plays made, the
batches dealt, the centre's size, points and cards that are not Jacks, the face-down cards
still in it and their points, the first and last capturers (-1: none), the kseri chain (1: the
last play scored a kseri; 2: it was a lone card laid right after one), the cards seen by every
seat and their points, the round of the match, the target, the winning side (-1: none yet),
whether the centre was swept at the round's end, whether the episode is over, and whether the
cards seen are kept (1: a policy reads them; whole random or greedy rounds skip them)."""

COUNTS: Final = 0
"""Cards captured this round."""
POINTS: Final = 1
"""Round points so far (card points, face-down ones included, and marks)."""
OPEN_POINTS: Final = 2
"""Card points captured as everyone saw them (face-down cards count 0)."""
MARKS: Final = 3
"""Kseri and bonus points marked this round."""
KSERI_POINTS: Final = 4
"""Points from kseris of every kind this round."""
KSERIS: Final = 5
"""Kseris scored this round."""
TOTALS: Final = 6
"""Match points."""
SIDE_ROWS: Final = 7
"""The rows of ``per_side``, one column per side."""

STATE: Final = np.dtype(
    [(name, np.int64) for name in NUMBERS] + [
        ("rng", np.uint64, (1,)),
        ("per_side", np.int64, (SIDE_ROWS, MAX_PLAYERS)),
        ("lengths", np.int64, (MAX_PLAYERS,)),
        ("hands", np.int64, (MAX_PLAYERS, MAX_HAND)),
        ("pile", np.int64, (MAX_DECK,)),
        ("public_rank", np.int64, (RANKS,)),
        ("public_face", np.int64, (FACES,)),
        ("unseen", np.int64, (RANKS,)),
        ("ratings", np.float64, (MAX_HAND,)),
        ("public", np.int8, (MAX_DECK,)),
        ("dealt", np.int8, (MAX_DECK,)),
        ("centre", np.int8, (MAX_CENTRE,)),
    ],
    align=True,
)
"""The compiled state of a round (and of the match around it). Besides :data:`NUMBERS`: the
random stream, ``per_side`` (rows :data:`COUNTS` to :data:`TOTALS`), each seat's hand and its
length (in the order dealt), the centre pile bottom to top, the cards every seat has seen (by
rank, by face, and each card), the expert's scratch counts and ratings of the hand, the deal (``dealt[(batch *
players + seat) * batch_size + k]``) and the centre as dealt."""


def new_states(count: int) -> NDArray[np.void]:
    """``count`` zeroed :data:`STATE` records."""
    return np.zeros(count, STATE)


def numbers_view(states: NDArray[np.void]) -> NDArray[np.int64]:
    """The :data:`NUMBERS` of each record as one ``int64`` row (a view: writes go through)."""
    return np.ndarray((states.shape[0], len(NUMBERS)), np.int64, states, 0, (states.dtype.itemsize, 8))


RULES: Final = np.dtype(
    [
        ("options", np.int64, (OPTIONS,)),
        ("table", np.int64, (MAX_DECK,)),
        ("side_of", np.int64, (MAX_PLAYERS,)),
        ("card_weight", np.float64),
        ("all_points", np.int64),
        ("holds", np.float64, (MAX_DECK + 1, MAX_HAND + 1, 17)),
    ],
    align=True,
)
"""A rule set as one record, as the kernels take it (:attr:`FlatRules.packed`): a record's
arrays cost the compiled code nothing to reach, where a tuple's arrays are counted on each use."""


class FlatRules(NamedTuple):
    """A rule set as the kernels take it: :attr:`packed`, one :data:`RULES` record, and views of
    its fields at the rules' shapes."""

    options: NDArray[np.int64]
    """One ``int64`` per option, at the positions above (:data:`OPTIONS` of them)."""
    table: NDArray[np.int64]
    """The points of each card number."""
    side_of: NDArray[np.int64]
    """The side of each seat."""
    holds: NDArray[np.float64]
    """``holds[pool, hand, wanted]``: the odds that a hand of ``hand`` unseen cards out of
    ``pool`` holds at least one of ``wanted`` (the expert's card counting)."""
    card_weight: float
    """What one captured card is worth towards the majority bonus."""
    all_points: int
    """The points of the whole deck."""
    packed: np.void
    """All of it in one :data:`RULES` record (the kernels' argument)."""


@lru_cache(maxsize=64)
def flatten(rules: Rules) -> FlatRules:
    """``rules`` as the kernels take it (cached: equal rule sets share one)."""
    if rules.batch_size > MAX_HAND or rules.centre_size > MAX_CENTRE:
        raise ValueError(f"the compiled core holds hands of at most {MAX_HAND} cards")
    record = np.zeros(1, RULES)[0]
    options = record["options"]
    centre_deal = {CentreDeal.REDEAL: REDEAL, CentreDeal.REPLACE_JACKS: REPLACE_JACKS,
                   CentreDeal.PISTI: PISTI}[rules.centre_deal]
    pisti = rules.centre_deal is CentreDeal.PISTI
    for index, value in (
        (PLAYERS, rules.players), (SIDES, rules.sides), (BATCHES, rules.batches),
        (BATCH_SIZE, rules.batch_size), (CENTRE_SIZE, rules.centre_size),
        (FACE_DOWN, rules.centre_size - 1 if pisti else 0), (CENTRE_DEAL, centre_deal),
        (KSERI, rules.kseri_value), (JACK_KSERI, -1 if rules.jack_kseri is None else rules.jack_kseri),
        (DOUBLE_KSERI, -1 if rules.double_kseri is None else rules.double_kseri),
        (LAST_OK, rules.kseri_on_last_card), (JACKS_WILD, rules.jacks_capture_all),
        (MAJORITY, rules.majority_bonus), (EVERY_TIED, rules.majority_tie is MajorityTie.EVERY_TIED_SIDE),
        (JACKS_TABLE, rules.jacks_table_bonus), (LAST_BONUS, rules.last_capture_bonus),
        (TWO_CLUBS_BONUS, rules.two_clubs_match_bonus), (DECK_SIZE, rules.deck_size),
        (PER_RANK, 4 * rules.decks), (TARGET, rules.target),
        (ESCALATION, rules.escalation if rules.target_rule is TargetRule.ESCALATE else 0),
    ):
        options[index] = int(value)
    holds = record["holds"][: rules.deck_size + 1, : rules.batch_size + 1, : 8 * rules.decks + 1]
    holds[...] = 1.0
    for pool in range(1, rules.deck_size + 1):
        for hand in range(1, min(rules.batch_size, pool) + 1):
            for wanted in range(1, min(8 * rules.decks, pool - 1) + 1):
                holds[pool, hand, wanted] = 1.0 - comb(pool - wanted, hand) / comb(pool, hand)
    table = record["table"][: rules.deck_size]
    table[:] = rules.points_table
    side_of = record["side_of"][: rules.players]
    side_of[:] = [rules.side_of(seat) for seat in range(rules.players)]
    record["card_weight"] = rules.majority_bonus / (rules.deck_size / rules.sides)
    record["all_points"] = sum(rules.points_table)
    return FlatRules(options, table, side_of, holds, float(record["card_weight"]), int(record["all_points"]),
                     record)


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


__all__ = ["POLICIES", "RULES", "STATE", "FlatRules", "flatten", "new_states", "numbers_view", "policy_codes"]

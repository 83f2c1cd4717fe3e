"""Compiled sampling of worlds for the master: many shuffles of the unseen cards at once, and
how likely each world makes the other players' plays of this batch.

The opponent model: a player chooses each card with a probability that falls with how much
worse the expert's rules of thumb (:class:`kseri.agents.expert.Tactics`) rate it than their
best card, a softmax over their hand at :data:`TEMPERATURE` points. A world in which the
opponent left a pile they could have taken, or shed a card they would have kept, explains
their plays badly and weighs little. Only the current batch tells anything: earlier batches'
hands were played out in full.

>>> import numpy as np
>>> pools = shuffled_pools(np.arange(10, dtype=np.int8), 3, seed=1)
>>> pools.shape, sorted(pools[0].tolist()) == list(range(10))
((3, 10), True)
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

from kseri.fast import kernels
from kseri.fast.flat import DECK_SIZE, PER_RANK, RANKS, flatten
from kseri.fast.kernels import RANK_OF, FlatRules, compiled
from kseri.rules import Rules

TEMPERATURE: Final = 1.0
"""Points of the expert's rating by which a play must trail the best to be e times less likely."""

CLUE_FIELDS: Final = 8
"""Columns of a clue: seat, card played, top rank (-1: empty), pile size, pile points, cards
left (this one included), cards seen, the next seat's hand size."""


@compiled
def _shuffled_pools(pool: NDArray[np.int8], count: int, seed: np.uint64, out: NDArray[np.int8]) -> None:
    deck = np.zeros(pool.shape[0], np.int64)
    state = np.zeros(1, np.uint64)
    for row in range(count):
        state[0] = kernels.stream(seed, row)
        for k in range(pool.shape[0]):
            deck[k] = pool[k]
        kernels.shuffle_from(deck, 0, state)
        for k in range(pool.shape[0]):
            out[row, k] = deck[k]


def shuffled_pools(pool: NDArray[np.int8], count: int, seed: int) -> NDArray[np.int8]:
    """``count`` independent shuffles of ``pool``, one row each, reproducible from ``seed``."""
    out = np.zeros((count, pool.shape[0]), np.int8)
    _shuffled_pools(pool, count, np.uint64(seed % 2**64), out)
    return out


@compiled
def _log_likelihoods(rules: FlatRules, hands: NDArray[np.int8], lengths: NDArray[np.int64],
                     clues: NDArray[np.int64], clue_seen: NDArray[np.int64], later: NDArray[np.int8],
                     later_len: NDArray[np.int64], temperature: float, out: NDArray[np.float64]) -> None:
    hand = np.zeros(hands.shape[2] + later.shape[1], np.int64)
    unseen = np.zeros(RANKS, np.int64)
    values = np.zeros(hand.shape[0], np.float64)
    for world in range(hands.shape[0]):
        total = 0.0
        for k in range(clues.shape[0]):
            seat = clues[k, 0]
            played = clues[k, 1]
            size = 0
            for j in range(lengths[seat]):
                hand[size] = hands[world, seat, j]
                size += 1
            for j in range(later_len[k]):
                hand[size] = later[k, j]
                size += 1
            if size < 2:
                continue
            for rank in range(RANKS):
                unseen[rank] = rules.options[PER_RANK] - clue_seen[k, rank]
            for j in range(size):
                unseen[RANK_OF[hand[j]]] -= 1
            pool = rules.options[DECK_SIZE] - clues[k, 6] - size
            best = -1e300
            chosen = 0.0
            for j in range(size):
                value = kernels.expert_value(rules, hand[j], clues[k, 2],
                                             clues[k, 3], float(clues[k, 4]), unseen, pool, clues[k, 7],
                                             clues[k, 5], -1)
                values[j] = value / temperature
                best = max(best, values[j])
                if hand[j] == played:
                    chosen = values[j]
            spread = 0.0
            for j in range(size):
                spread += np.exp(values[j] - best)
            total += chosen - best - np.log(spread)
        out[world] = total


def log_likelihoods(rules: Rules, hands: NDArray[np.int8], lengths: NDArray[np.int64],
                    clues: NDArray[np.int64], clue_seen: NDArray[np.int64], later: NDArray[np.int8],
                    later_len: NDArray[np.int64],
                    temperature: float = TEMPERATURE) -> NDArray[np.float64]:
    """The log-probability of the clue plays in each world under the opponent model.

    ``hands[w, seat, :lengths[seat]]`` are world ``w``'s hands now; clue ``k`` is a play of
    this batch (``clues[k]``: :data:`CLUE_FIELDS`, ``clue_seen[k]`` the cards seen by rank
    before it) whose player then held their hand now plus ``later[k, :later_len[k]]`` (the
    cards they have played since, this one included).
    """
    compiled_rules = flatten(rules)
    out = np.zeros(hands.shape[0], np.float64)
    if clues.shape[0]:
        _log_likelihoods(compiled_rules.packed, hands, lengths, clues, clue_seen, later, later_len,
                         temperature, out)
    return out


__all__ = ["CLUE_FIELDS", "TEMPERATURE", "log_likelihoods", "shuffled_pools"]

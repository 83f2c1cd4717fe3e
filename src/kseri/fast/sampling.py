"""Compiled sampling of worlds for the master: many shuffles of the unseen cards at once, and
how likely each world makes the other players' plays.

The opponent model reads each other player as one of four styles (:data:`STYLES`): a random
player, greedy, the expert or a loose expert. Under the expert's style a player chooses each card
with a probability that falls with how much worse the compiled expert
(:func:`kseri.fast.kernels.expert_choice`, from public memory) rates it than their best card, a
softmax over their hand at :data:`TEMPERATURE` points; under the loose expert's the same softmax
at :data:`~kseri.fast.kernels.LOOSE_TEMPERATURE` points (the slips the loose policy of the
rollouts makes); under greedy's it plays greedy's card
(:func:`kseri.fast.kernels.greedy_key`) but for a rare slip; a random player any card alike.
The plays of earlier batches, whose hands are known once played out, tell which style a player
has; the plays of this batch also tell what they hold: a world in which the opponent left a pile
they could have taken, or shed a card they would have kept, explains their plays badly and
weighs little.

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
from kseri.fast.flat import (
    BATCH_SIZE,
    BATCHES,
    EXPERT,
    GREEDY,
    LOOSE,
    PLAYERS,
    RANDOM,
    RANKS,
    flatten,
    new_states,
)
from kseri.fast.kernels import LOOSE_TEMPERATURE, RANK_OF, FlatRules, compiled, play_card
from kseri.rules import Rules

TEMPERATURE: Final = 0.5
"""Points of the expert's rating by which a play must trail the best to be e times less likely."""

CLUE_FIELDS: Final = 9
"""Columns of a clue: seat, card played, top rank (-1: empty), pile size, pile points, cards
left (this one included), cards seen, the next seat's hand size, and 1 for a play of the current
batch (whose player's hand then held their hand now) or 0 for an earlier batch's."""

STYLES: Final = ("random", "greedy", "expert", "loose")
"""The styles the model reads a player as, in the kernels' policy codes' order
(:data:`~kseri.fast.flat.POLICIES`): a uniformly random card; greedy's play but for a slip
(:data:`GREEDY_SLIP`); the expert's ratings under a softmax at :data:`TEMPERATURE` points; the
same at :data:`~kseri.fast.kernels.LOOSE_TEMPERATURE` points."""

GREEDY_SLIP: Final = 0.05
"""The chance that a player read as greedy plays another card than greedy's."""


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
                     later_len: NDArray[np.int64], temperature: float, slip: float,
                     states: NDArray[np.void], out: NDArray[np.float64]) -> None:
    state = states[0]
    cfg = rules.options
    players = cfg[PLAYERS]
    total = cfg[BATCHES] * players * cfg[BATCH_SIZE]
    keys = np.zeros(cfg[BATCH_SIZE] + 1, np.float64)
    for world in range(hands.shape[0]):
        for k in range(clues.shape[0]):
            # the clue's player about to play, as the expert sees it from public memory
            seat = clues[k, 0]
            played = clues[k, 1]
            size = 0
            if clues[k, 8]:
                for j in range(lengths[seat]):
                    state.hands[seat, size] = hands[world, seat, j]
                    size += 1
            for j in range(later_len[k]):
                state.hands[seat, size] = later[k, j]
                size += 1
            if size < 2:
                continue
            state.turn = seat
            state.lengths[seat] = size
            state.lengths[seat + 1 if seat + 1 < players else 0] = clues[k, 7]
            for rank in range(RANKS):
                state.public_rank[rank] = clue_seen[k, rank]
            state.public_count = clues[k, 6]
            state.pile_len = clues[k, 3]
            if clues[k, 3]:
                state.pile[clues[k, 3] - 1] = 4 * clues[k, 2]  # a card of the top's rank
            state.pile_points = clues[k, 4]
            state.index = total - clues[k, 5]
            out[world, seat, RANDOM] -= np.log(size)
            # greedy: its play, all but surely (ties alike)
            top = -1e300
            for j in range(size):
                keys[j] = kernels.greedy_key(rules, state.hands[seat, j], clues[k, 2], clues[k, 3],
                                             clues[k, 5])
                top = max(top, keys[j])
            ties = 0
            chose_top = False
            for j in range(size):
                if keys[j] == top:
                    ties += 1
                    chose_top = chose_top or state.hands[seat, j] == played
            if chose_top:
                out[world, seat, GREEDY] += np.log((1.0 - slip) / ties)
            else:
                out[world, seat, GREEDY] += np.log(slip / (size - ties))
            # the expert and the loose expert: softmaxes over the expert's ratings, each card by
            # how far it trails the expert's own play
            best = state.ratings[kernels.expert_choice(rules, state, False)]
            chosen = 0.0
            spread = 0.0
            loose_spread = 0.0
            for j in range(size):
                trail = state.ratings[j] - best
                if state.hands[seat, j] == played:
                    chosen = trail
                spread += np.exp(trail / temperature)
                loose_spread += np.exp(trail / LOOSE_TEMPERATURE)
            out[world, seat, EXPERT] += chosen / temperature - np.log(spread)
            out[world, seat, LOOSE] += chosen / LOOSE_TEMPERATURE - np.log(loose_spread)


@compiled
def _replay(rules: FlatRules, states: NDArray[np.void], cards: NDArray[np.int64], reads: NDArray[np.int64],
            clues: NDArray[np.int64], clue_seen: NDArray[np.int64], clue_hidden: NDArray[np.int64]) -> None:
    state = states[0]
    cfg = rules.options
    players = cfg[PLAYERS]
    size = cfg[BATCH_SIZE]
    per_batch = players * size
    total = cfg[BATCHES] * per_batch
    for k in range(cards.shape[0]):
        row = reads[k]
        if row >= 0:
            pile_len = state.pile_len
            clues[row, 2] = RANK_OF[state.pile[pile_len - 1]] if pile_len else -1
            clues[row, 3] = pile_len
            clues[row, 4] = state.pile_points
            clues[row, 5] = total - state.index
            clues[row, 6] = state.public_count
            clue_hidden[row] = state.hidden
            for rank in range(RANKS):
                clue_seen[row, rank] = state.public_rank[rank]
        seat = state.turn
        state.hands[seat, 0] = cards[k]
        state.lengths[seat] = size - state.index % per_batch // players
        play_card(rules, state, 0)


def replay(rules: Rules, states: NDArray[np.void], cards: NDArray[np.int64], reads: NDArray[np.int64],
           clues: NDArray[np.int64], clue_seen: NDArray[np.int64]) -> NDArray[np.int64]:
    """Play ``cards`` in turn through the compiled step on ``states[0]`` (a round started from its
    public centre: no hands, no deal), each as the seat to play's only card of the moment.
    Before play ``k`` with ``reads[k] >= 0`` its position fills the row ``reads[k]`` of ``clues``
    (columns 2 to 6 of :data:`CLUE_FIELDS`; the pile's points as the state counts them) and of
    ``clue_seen``; returns the face-down cards still in the centre at each clue."""
    hidden = np.zeros(clues.shape[0], np.int64)
    _replay(flatten(rules).packed, states, cards, reads, clues, clue_seen, hidden)
    return hidden


def log_likelihoods(rules: Rules, hands: NDArray[np.int8], lengths: NDArray[np.int64],
                    clues: NDArray[np.int64], clue_seen: NDArray[np.int64], later: NDArray[np.int8],
                    later_len: NDArray[np.int64], temperature: float = TEMPERATURE,
                    slip: float = GREEDY_SLIP) -> NDArray[np.float64]:
    """The log-probability of the clue plays in each world under each style, by the seat that
    played them: ``out[w, seat, style]`` for the styles of :data:`STYLES`.

    ``hands[w, seat, :lengths[seat]]`` are world ``w``'s hands now; clue ``k`` is a play
    (``clues[k]``: :data:`CLUE_FIELDS`, ``clue_seen[k]`` the cards seen by rank before it) whose
    player then held ``later[k, :later_len[k]]`` (the cards they played since in that batch,
    this one included) and, for a play of this batch (column 8 set), their hand now.
    """
    compiled_rules = flatten(rules)
    out = np.zeros((hands.shape[0], rules.players, len(STYLES)), np.float64)
    if clues.shape[0]:
        _log_likelihoods(compiled_rules.packed, hands, lengths, clues, clue_seen, later, later_len,
                         temperature, slip, new_states(1), out)
    return out


__all__ = [
    "CLUE_FIELDS", "GREEDY_SLIP", "STYLES", "TEMPERATURE", "log_likelihoods", "replay", "shuffled_pools",
]

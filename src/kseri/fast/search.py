"""The master's rollouts on the compiled core: worlds loaded into the state record, then the
candidate and each seat's policy played through the one play step (:mod:`kseri.fast.kernels`).
:func:`kseri.fast.rollouts` is the typed face; ``tests/agents/test_master_rollouts.py`` proves
the results equal to the Python rollout, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from kseri.fast.flat import BATCH_SIZE, BATCHES, COUNTS, GREEDY, LOOSE, PLAYERS, POINTS, RANDOM, RANKS, SIDES
from kseri.fast.kernels import (
    JACK,
    RANK_OF,
    FlatRules,
    State,
    compiled,
    draw,
    expert_choice,
    greedy_choice,
    loose_choice,
    play_card,
    stream,
)


@compiled
def load_world(rules: FlatRules, state: State, world: int, hands: NDArray[np.int8],
               lengths: NDArray[np.int64], future: NDArray[np.int8], centre: NDArray[np.int8],
               centre_len: NDArray[np.int64], numbers: NDArray[np.int64], points: NDArray[np.int64],
               counts: NDArray[np.int64], seen: NDArray[np.int64]) -> None:
    """Set ``state`` to world ``world`` of the master's positions (see :func:`rollouts`): a
    round in progress with every card known, its future batches in the deal, and the public
    memory of what every seat has seen (no face-down card is hidden)."""
    cfg = rules.options
    players = cfg[PLAYERS]
    size = cfg[BATCH_SIZE]
    per_batch = players * size
    total = cfg[BATCHES] * per_batch
    for seat in range(players):
        state.lengths[seat] = lengths[world, seat]
        for k in range(lengths[world, seat]):
            state.hands[seat, k] = hands[world, seat, k]
    pile_len = centre_len[world]
    plain = 0
    for k in range(pile_len):
        state.pile[k] = centre[world, k]
        if RANK_OF[state.pile[k]] != JACK:
            plain += 1
    state.pile_len = pile_len
    state.pile_plain = plain
    state.pile_points = numbers[world, 0]
    state.turn = numbers[world, 1]
    index = total - numbers[world, 2]
    state.index = index
    state.dealer = (state.turn - 1 - index % per_batch) % players  # who plays each batch's last card
    state.last_capturer = numbers[world, 3]
    state.first_capturer = -1
    state.chain = numbers[world, 4]
    state.public_count = numbers[world, 5]
    state.public_points = 0
    state.hidden = 0
    state.hidden_points = 0
    batch = index // per_batch + 1
    state.batch = batch
    for later in range(future.shape[1]):
        for seat in range(players):
            start = ((batch + later) * players + seat) * size
            for k in range(size):
                state.dealt[start + k] = future[world, later, seat, k]
    for side in range(cfg[SIDES]):
        state.per_side[POINTS, side] = points[world, side]
        state.per_side[COUNTS, side] = counts[world, side]
    for rank in range(RANKS):
        state.public_rank[rank] = seen[world, rank]


@compiled
def load_worlds(rules: FlatRules, states: NDArray[np.void], hands: NDArray[np.int8],
                lengths: NDArray[np.int64], future: NDArray[np.int8], centre: NDArray[np.int8],
                centre_len: NDArray[np.int64],
                numbers: NDArray[np.int64], points: NDArray[np.int64], counts: NDArray[np.int64],
                seen: NDArray[np.int64]) -> None:
    """Set ``states[w]`` to world ``w`` of the master's positions (:func:`load_world`), its
    public memory kept as it plays on."""
    for world in range(hands.shape[0]):
        states[world].memory = 1
        load_world(rules, states[world], world, hands, lengths, future, centre, centre_len, numbers, points,
                   counts, seen)


@compiled
def play_in(rules: FlatRules, states: NDArray[np.void], world: int, card: int) -> int:
    """The seat to play in ``states[world]`` plays ``card`` through the step; returns the
    cards taken, or -1 (and changes nothing) when the card is not in its hand."""
    state = states[world]
    if state.turn < 0:
        return -1
    for position in range(state.lengths[state.turn]):
        if state.hands[state.turn, position] == card:
            return play_card(rules, state, position)
    return -1


@compiled
def rollouts(rules: FlatRules, hands: NDArray[np.int8], lengths: NDArray[np.int64], future: NDArray[np.int8],
             centre: NDArray[np.int8], centre_len: NDArray[np.int64], numbers: NDArray[np.int64],
             points: NDArray[np.int64], counts: NDArray[np.int64], seen: NDArray[np.int64],
             candidates: NDArray[np.int64], finals: NDArray[np.float64], over: NDArray[np.bool_],
             to_end: bool, states: NDArray[np.void], policies: NDArray[np.int64], seed: np.uint64) -> None:
    """The master's rollouts, for every world and candidate, in ``states[0]``: play the
    candidate, then each seat's policy in that world (``policies[w, seat]``: random, greedy, the
    expert or the loose expert from public memory; the random and loose plays drawn from
    ``seed``'s stream of the world and candidate) to the horizon (the round's end when
    ``to_end``; else the end of the current batch, or of the next one when this one has at most
    one card a seat left).

    World ``w`` is ``hands[w]`` (``lengths`` cards a seat), its future batches ``future[w]``,
    its centre ``centre[w, :centre_len[w]]``, and ``numbers[w]``: the centre's points, the
    seat to play, cards left, the last capturer, the kseri chain, the cards seen; ``points``,
    ``counts`` and ``seen`` per side and per rank. ``finals[w, c]`` receives each side's
    points at the horizon (captured cards at their share of the majority before the round's
    end), ``over[w]`` whether that is the round's end.
    """
    cfg = rules.options
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    per_batch = players * cfg[BATCH_SIZE]
    total = cfg[BATCHES] * per_batch
    state = states[0]
    per_side = state.per_side
    state.memory = 1
    for world in range(hands.shape[0]):
        for choice in range(candidates.shape[0]):
            load_world(rules, state, world, hands, lengths, future, centre, centre_len, numbers, points,
                       counts, seen)
            position = 0
            for k in range(state.lengths[state.turn]):
                if state.hands[state.turn, k] == candidates[choice]:
                    position = k
                    break
            play_card(rules, state, position)
            left = total - state.index
            horizon = left - left % per_batch
            if left - horizon <= players:
                horizon = max(0, horizon - per_batch)
            if to_end:
                horizon = 0
            rng = stream(seed, world * 64 + choice)
            while total - state.index > horizon:
                policy = policies[world, state.turn]
                if policy == RANDOM:
                    rng, pick = draw(rng, state.lengths[state.turn])
                elif policy == GREEDY:
                    pick = greedy_choice(rules, state)
                elif policy == LOOSE:
                    rng, pick = loose_choice(rules, state, False, rng)
                else:
                    pick = expert_choice(rules, state, False)
                play_card(rules, state, pick)
            over[world] = state.index == total
            for side in range(sides):
                finals[world, choice, side] = per_side[POINTS, side] + (
                    0.0 if over[world] else rules.card_weight * per_side[COUNTS, side])

"""Many learning environments stepped at once on the compiled core (numba), for ``kseri.rl``.

Each environment is one match of kseri seen by one learning seat; the other seats follow the
compiled ``random``, ``greedy`` or ``expert`` policies (the same choices as those agents).
:class:`EnvBatch` keeps every environment's state in arrays; :meth:`EnvBatch.step` plays one
card face per environment for its learner, lets the other seats play up to the learner's
next turn (or the episode's end), and writes each learner's observation, action mask, reward
and end flag in place. The observation fills the slots of ``kseri.agents.encoding``'s layout:
this floor does not import that module, so the caller passes the layout in (:class:`Layout`:
where each field of :data:`ENCODED` starts, the rule constants, the scales), and
``tests/rl`` proves the vectors equal to ``encode_vector(Match.view(seat))``.

The rules of play follow :class:`kseri.engine.Match` (``play``, ``_marks_of``, ``_end_round``,
``_score``, ``_settle``) as :func:`kseri.fast.kernels.play_round` does, one play at a time;
rounds are dealt by :func:`kseri.fast.kernels.deal` from each environment's own SplitMix64
stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray

from kseri.cards import ALL_CARDS, JACK, TWO, Card
from kseri.fast.flat import flatten, policy_codes
from kseri.fast.kernels import (
    BATCH_SIZE,
    BATCHES,
    CENTRE_DEAL,
    CENTRE_SIZE,
    DECK_SIZE,
    DOUBLE_KSERI,
    EVERY_TIED,
    EXPERT,
    FACE_DOWN,
    GREEDY,
    JACK_KSERI,
    JACKS_TABLE,
    JACKS_WILD,
    KSERI,
    LAST_BONUS,
    LAST_OK,
    MAJORITY,
    PER_RANK,
    PISTI,
    PLAYERS,
    RANDOM,
    RANK_OF,
    RANKS,
    SIDES,
    TARGET,
    TWO_CLUBS,
    TWO_CLUBS_BONUS,
    compiled,
    deal,
    draw,
    expert_value,
    greedy_choice,
    settle,
    stream,
)
from kseri.rules import Rules

FACES: Final = 52

ENCODED: Final = (
    "hand", "centre_top", "centre_cards", "centre_size", "centre_face_down", "centre_points", "seen",
    "seen_ranks", "seen_suits", "unseen_points", "captured", "captured_points", "marks_points", "totals",
    "target", "stock_size", "hand_sizes", "turn", "dealer", "last_capturer", "partner", "shown",
    "lone_after_kseri", "plays_made", "round_index", "captures", "capture_points", "kseri", "lay_points",
    "rank_unseen", "held_jack",
)
"""The fields of ``kseri.agents.encoding`` this module fills per step, in the order of
:attr:`Layout.offsets` (the rule fields come in :attr:`Layout.constants`)."""
(_HAND, _TOP, _CENTRE_CARDS, _CENTRE_SIZE, _FACE_DOWN_LEFT, _CENTRE_POINTS, _SEEN, _SEEN_RANKS, _SEEN_SUITS,
 _UNSEEN_POINTS, _CAPTURED, _CAPTURED_POINTS, _MARKS_POINTS, _TOTALS, _TARGET, _STOCK, _HAND_SIZES, _TURN,
 _DEALER, _LAST_CAPTURER, _PARTNER, _SHOWN, _LONE, _PLAYS_MADE, _ROUND_INDEX, _CAPTURES, _CAPTURE_POINTS,
 _KSERI_FACES, _LAY_POINTS, _RANK_UNSEEN, _HELD_JACK) = range(len(ENCODED))

# -- one row of numbers per environment, at these columns -----------------------------------
SEAT: Final = 0
"""The learner's seat."""
DEALER: Final = 1
TURN: Final = 2
"""The seat to play (-1: the round is over)."""
INDEX: Final = 3
"""Plays made this round."""
BATCH: Final = 4
"""Batches dealt this round."""
PILE_LEN: Final = 5
PILE_POINTS: Final = 6
PILE_PLAIN: Final = 7
"""Cards in the centre that are not Jacks."""
HIDDEN: Final = 8
"""Face-down cards still in the centre."""
HIDDEN_POINTS: Final = 9
FIRST_CAPTURER: Final = 10
LAST_CAPTURER: Final = 11
KSERI_BEFORE: Final = 12
"""Whether the play before the previous one scored a kseri."""
KSERI_LAST: Final = 13
"""Whether the previous play scored a kseri."""
LONE: Final = 14
"""Whether the centre is one card led right after a kseri."""
PUBLIC_COUNT: Final = 15
PUBLIC_POINTS: Final = 16
ROUND: Final = 17
GOAL: Final = 18
"""The match target now."""
WINNER: Final = 19
"""The winning side (-1: none yet)."""
SWEPT: Final = 20
"""1 once the round is over and its centre swept to the last capturer."""
DONE: Final = 21
"""1 when the episode is over and the next step resets the environment."""
NUMBERS: Final = 22

# -- per side, at these rows -------------------------------------------------------------------
COUNTS: Final = 0
"""Cards captured this round."""
POINTS: Final = 1
"""Round points so far (card points, face-down ones included, and marks)."""
OPEN_POINTS: Final = 2
"""Card points captured as everyone saw them (face-down cards count 0)."""
MARKS: Final = 3
"""Kseri and bonus points marked this round."""
TOTALS: Final = 4
"""Match points."""
SIDE_ROWS: Final = 5


@compiled
def _start_round(cfg: NDArray[np.int64], table: NDArray[np.int64], numbers: NDArray[np.int64],
                 per_side: NDArray[np.int64], hands: NDArray[np.int64], lengths: NDArray[np.int64],
                 pile: NDArray[np.int64], dealt: NDArray[np.int8], centre: NDArray[np.int8],
                 public: NDArray[np.bool_], public_rank: NDArray[np.int64], public_face: NDArray[np.int64],
                 state: NDArray[np.uint64], deck: NDArray[np.int64]) -> None:
    """Deal a round for the dealer in ``numbers`` (``Match._start``)."""
    players = cfg[PLAYERS]
    size = cfg[BATCH_SIZE]
    dealer = numbers[DEALER]
    deal(cfg, dealer, state, deck, centre, dealt)
    for seat in range(players):
        for k in range(size):
            hands[seat, k] = dealt[0, seat, k]
        lengths[seat] = size
    public[:] = False
    public_rank[:] = 0
    public_face[:] = 0
    per_side[COUNTS] = 0
    per_side[POINTS] = 0
    per_side[OPEN_POINTS] = 0
    per_side[MARKS] = 0
    hidden = cfg[FACE_DOWN]
    pile_points = 0
    plain = 0
    hidden_points = 0
    for i in range(cfg[CENTRE_SIZE]):
        card = int(centre[i])
        pile[i] = card
        pile_points += table[card]
        if RANK_OF[card] != JACK:
            plain += 1
        if i < hidden:
            hidden_points += table[card]
        else:
            public[card] = True
            public_rank[RANK_OF[card]] += 1
            public_face[card % FACES] += 1
    numbers[TURN] = dealer + 1 if dealer + 1 < players else 0
    numbers[INDEX] = 0
    numbers[BATCH] = 1
    numbers[PILE_LEN] = cfg[CENTRE_SIZE]
    numbers[PILE_POINTS] = pile_points
    numbers[PILE_PLAIN] = plain
    numbers[HIDDEN] = hidden
    numbers[HIDDEN_POINTS] = hidden_points
    numbers[FIRST_CAPTURER] = -1
    numbers[LAST_CAPTURER] = -1
    numbers[KSERI_BEFORE] = 0
    numbers[KSERI_LAST] = 0
    numbers[LONE] = 0
    numbers[PUBLIC_COUNT] = cfg[CENTRE_SIZE] - hidden
    numbers[PUBLIC_POINTS] = pile_points - hidden_points
    numbers[SWEPT] = 0


@compiled
def _shown(cfg: NDArray[np.int64], numbers: NDArray[np.int64], dealt: NDArray[np.int8]) -> int:
    """Pisti's shown card (the dealer's last), or -1."""
    if cfg[CENTRE_DEAL] != PISTI:
        return -1
    return int(dealt[cfg[BATCHES] - 1, numbers[DEALER], cfg[BATCH_SIZE] - 1])


@compiled
def _expert_choice(cfg: NDArray[np.int64], table: NDArray[np.int64], holds: NDArray[np.float64],
                   card_weight: float, all_points: int, numbers: NDArray[np.int64], hands: NDArray[np.int64],
                   lengths: NDArray[np.int64], pile: NDArray[np.int64], dealt: NDArray[np.int8],
                   centre: NDArray[np.int8], public: NDArray[np.bool_], public_rank: NDArray[np.int64],
                   unseen: NDArray[np.int64], seat: int) -> int:
    """The position of ``ExpertAgent``'s play in ``hands[seat]`` (as in ``kernels.play_round``,
    whose copy stays inline: a call to a shared function there cost its expert rounds 20 to 30 %
    in ``benchmarks/fast.py``, even with numba's ``inline="always"``)."""
    players = cfg[PLAYERS]
    per_batch = players * cfg[BATCH_SIZE]
    length = lengths[seat]
    pile_len = numbers[PILE_LEN]
    top_rank = RANK_OF[pile[pile_len - 1]] if pile_len else -1
    left = cfg[BATCHES] * per_batch - numbers[INDEX]
    for rank in range(RANKS):
        unseen[rank] = cfg[PER_RANK] - public_rank[rank]
    pool = cfg[DECK_SIZE] - numbers[PUBLIC_COUNT] - length
    unseen_points = all_points - numbers[PUBLIC_POINTS]
    for k in range(length):
        unseen[RANK_OF[hands[seat, k]]] -= 1
        unseen_points -= table[hands[seat, k]]
    if numbers[FIRST_CAPTURER] == seat:  # it took the face-down cards, and saw them
        for i in range(cfg[FACE_DOWN]):
            unseen[RANK_OF[centre[i]]] -= 1
            unseen_points -= table[centre[i]]
        pool -= cfg[FACE_DOWN]
    next_seat = seat + 1 if seat + 1 < players else 0
    opp_hand = lengths[next_seat]
    forced_rank = -1
    shown = _shown(cfg, numbers, dealt)
    if shown >= 0 and not public[shown]:
        held = False
        for k in range(length):
            if hands[seat, k] == shown:
                held = True
        if not held:
            unseen[RANK_OF[shown]] -= 1
            unseen_points -= table[shown]
            pool -= 1
            if numbers[INDEX] >= (cfg[BATCHES] - 1) * per_batch and next_seat == numbers[DEALER]:
                forced_rank = RANK_OF[shown]
                opp_hand -= 1
    mean_hidden = unseen_points / pool if pool else 0.0
    known_points = (numbers[PILE_POINTS] - numbers[HIDDEN_POINTS]) + numbers[HIDDEN] * mean_hidden
    position = 0
    best = -1e9
    for k in range(length):
        worth = expert_value(cfg, table, holds, card_weight, hands[seat, k], top_rank, pile_len, known_points,
                             unseen, pool, opp_hand, left, forced_rank)
        if worth > best:
            position, best = k, worth
    return position


@compiled
def _play(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
          numbers: NDArray[np.int64], per_side: NDArray[np.int64], hands: NDArray[np.int64],
          lengths: NDArray[np.int64], pile: NDArray[np.int64], dealt: NDArray[np.int8],
          public: NDArray[np.bool_], public_rank: NDArray[np.int64], public_face: NDArray[np.int64],
          position: int) -> None:
    """The seat to play plays the card at ``position`` of its hand (``Match.play``); the round
    ends, swept and scored, after its last play (``Match._end_round``)."""
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    seat = numbers[TURN]
    length = lengths[seat]
    card = hands[seat, position]
    for k in range(position, length - 1):
        hands[seat, k] = hands[seat, k + 1]
    lengths[seat] = length - 1
    rank = RANK_OF[card]
    public[card] = True
    public_rank[rank] += 1
    public_face[card % FACES] += 1
    numbers[PUBLIC_COUNT] += 1
    numbers[PUBLIC_POINTS] += table[card]
    total = cfg[BATCHES] * players * cfg[BATCH_SIZE]
    index = numbers[INDEX]
    pile_len = numbers[PILE_LEN]
    top = pile[pile_len - 1] if pile_len else -1
    top_rank = RANK_OF[top] if pile_len else -1
    kseri_now = False
    if pile_len and (rank == top_rank or (rank == JACK and cfg[JACKS_WILD] == 1)):
        side = side_of[seat]
        bonus = 0
        if pile_len == 1 or cfg[JACKS_TABLE] > 0 or cfg[TWO_CLUBS_BONUS] > 0:
            if pile_len == 1 and rank == top_rank:
                value = cfg[KSERI]
                if rank == JACK:
                    value = cfg[JACK_KSERI]
                elif cfg[DOUBLE_KSERI] >= 0 and numbers[KSERI_BEFORE] == 1:
                    value = cfg[DOUBLE_KSERI]
                if value >= 0 and (cfg[LAST_OK] == 1 or index + 1 < total):
                    bonus += value
                    kseri_now = True
            if cfg[JACKS_TABLE] > 0 and numbers[PILE_PLAIN] == 0:
                bonus += cfg[JACKS_TABLE]
            if cfg[TWO_CLUBS_BONUS] > 0 and rank == 0 and top % FACES == TWO_CLUBS:
                bonus += cfg[TWO_CLUBS_BONUS]
        per_side[POINTS, side] += numbers[PILE_POINTS] + table[card] + bonus
        per_side[OPEN_POINTS, side] += numbers[PILE_POINTS] - numbers[HIDDEN_POINTS] + table[card]
        per_side[MARKS, side] += bonus
        per_side[COUNTS, side] += pile_len + 1
        if numbers[FIRST_CAPTURER] < 0:
            numbers[FIRST_CAPTURER] = seat
            numbers[HIDDEN] = 0
            numbers[HIDDEN_POINTS] = 0
        numbers[LAST_CAPTURER] = seat
        numbers[PILE_LEN] = 0
        numbers[PILE_POINTS] = 0
        numbers[PILE_PLAIN] = 0
    else:
        pile[pile_len] = card
        numbers[PILE_LEN] = pile_len + 1
        numbers[PILE_POINTS] += table[card]
        if rank != JACK:
            numbers[PILE_PLAIN] += 1
    numbers[LONE] = 1 if numbers[KSERI_LAST] == 1 and numbers[PILE_LEN] == 1 else 0
    numbers[KSERI_BEFORE] = numbers[KSERI_LAST]
    numbers[KSERI_LAST] = 1 if kseri_now else 0
    numbers[INDEX] = index + 1
    next_seat = seat + 1 if seat + 1 < players else 0
    if lengths[seat] > 0 or seat != numbers[DEALER]:
        numbers[TURN] = next_seat
        return
    batch = numbers[BATCH]
    if batch < cfg[BATCHES]:
        for s in range(players):
            for k in range(cfg[BATCH_SIZE]):
                hands[s, k] = dealt[batch, s, k]
            lengths[s] = cfg[BATCH_SIZE]
        numbers[BATCH] = batch + 1
        numbers[TURN] = next_seat
        return
    # the round's end: the sweep, the majority, the last capture, the match's settlement
    numbers[TURN] = -1
    last = numbers[LAST_CAPTURER]
    if last >= 0:
        side = side_of[last]
        per_side[POINTS, side] += numbers[PILE_POINTS] + cfg[LAST_BONUS]
        per_side[COUNTS, side] += numbers[PILE_LEN]
        numbers[SWEPT] = 1
    most = 0
    for side in range(sides):
        most = max(most, per_side[COUNTS, side])
    if cfg[MAJORITY] > 0 and most > 0:
        leaders = 0
        for side in range(sides):
            if per_side[COUNTS, side] == most:
                leaders += 1
        if leaders == 1 or cfg[EVERY_TIED] == 1:
            for side in range(sides):
                if per_side[COUNTS, side] == most:
                    per_side[POINTS, side] += cfg[MAJORITY]
    for side in range(sides):
        per_side[TOTALS, side] += per_side[POINTS, side]
    winner, goal = settle(cfg, per_side[TOTALS, :sides], numbers[GOAL])
    numbers[WINNER] = winner
    numbers[GOAL] = goal


@compiled
def _encode(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
            offsets: NDArray[np.int64], constants: NDArray[np.float32], scales: NDArray[np.float32],
            numbers: NDArray[np.int64], per_side: NDArray[np.int64], hands: NDArray[np.int64],
            lengths: NDArray[np.int64], pile: NDArray[np.int64], dealt: NDArray[np.int8],
            centre: NDArray[np.int8], public_face: NDArray[np.int64], out: NDArray[np.float32],
            mask: NDArray[np.int8]) -> None:
    """The learner's observation (``encoding.encode_vector`` of its view) into ``out`` and its
    action mask into ``mask``."""
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    decks = cfg[PER_RANK] // 4
    me = numbers[SEAT]
    my_side = side_of[me]
    for i in range(out.shape[0]):
        out[i] = constants[i]
    mask[:] = 0
    hand = offsets[_HAND]
    seen = offsets[_SEEN]
    my_turn = numbers[TURN] == me
    for k in range(lengths[me]):
        face = hands[me, k] % FACES
        out[hand + face] += 1
        if my_turn:
            mask[face] = 1
    for face in range(FACES):
        out[seen + face] = public_face[face]
    hidden_points = 0
    if numbers[FIRST_CAPTURER] == me:
        for i in range(cfg[FACE_DOWN]):
            out[seen + centre[i] % FACES] += 1
            hidden_points += table[centre[i]]
    shown = _shown(cfg, numbers, dealt)
    if shown >= 0:
        held = False
        for k in range(lengths[me]):
            if hands[me, k] == shown:
                held = True
        if out[seen + shown % FACES] == 0 and not held:
            out[seen + shown % FACES] += 1
        out[offsets[_SHOWN] + shown % FACES] = 1
    pile_len = numbers[PILE_LEN]
    in_centre = pile_len > 0 and numbers[SWEPT] == 0
    top = pile[pile_len - 1] if in_centre else -1
    if in_centre:
        out[offsets[_TOP] + top % FACES] = 1
    centre_points = 0
    all_jacks = pile_len > 0 and numbers[HIDDEN] == 0
    for i in range(numbers[HIDDEN], pile_len):
        out[offsets[_CENTRE_CARDS] + pile[i] % FACES] += 1
        centre_points += table[pile[i]]
        if RANK_OF[pile[i]] != JACK:
            all_jacks = False
    ranks = offsets[_SEEN_RANKS]
    suits = offsets[_SEEN_SUITS]
    unseen_points = np.float32(0.0)
    for face in range(FACES):
        count = out[seen + face]
        out[ranks + face // 4] += count
        out[suits + face % 4] += count
        unseen_points += np.float32(table[face]) * (np.float32(decks) - out[hand + face] - count)
    out[offsets[_UNSEEN_POINTS]] = unseen_points
    out[offsets[_CENTRE_SIZE]] = 0 if numbers[SWEPT] else pile_len
    out[offsets[_FACE_DOWN_LEFT]] = numbers[HIDDEN]
    out[offsets[_CENTRE_POINTS]] = centre_points
    for side in range(sides):
        relative = (side - my_side) % sides
        out[offsets[_CAPTURED] + relative] = per_side[COUNTS, side]
        out[offsets[_CAPTURED_POINTS] + relative] = per_side[OPEN_POINTS, side] + (
            hidden_points if relative == 0 else 0)
        out[offsets[_MARKS_POINTS] + relative] = per_side[MARKS, side]
        out[offsets[_TOTALS] + relative] = per_side[TOTALS, side]
    out[offsets[_TARGET]] = numbers[GOAL]
    out[offsets[_STOCK]] = (cfg[BATCHES] - numbers[BATCH]) * players * cfg[BATCH_SIZE]
    cards_held = 0
    for seat in range(players):
        relative = (seat - me) % players
        out[offsets[_HAND_SIZES] + relative] = lengths[seat]
        cards_held += lengths[seat]
        if side_of[seat] == my_side:
            out[offsets[_PARTNER] + relative] = 1
    if numbers[TURN] >= 0:
        out[offsets[_TURN] + (numbers[TURN] - me) % players] = 1
    out[offsets[_DEALER] + (numbers[DEALER] - me) % players] = 1
    if numbers[LAST_CAPTURER] >= 0:
        out[offsets[_LAST_CAPTURER] + (numbers[LAST_CAPTURER] - me) % players] = 1
    lone = numbers[LONE] == 1
    out[offsets[_LONE]] = 1 if lone else 0
    # what each held face would do if played now (``encoding._play_features``)
    last_play = numbers[BATCH] == cfg[BATCHES] and cards_held == 1
    for face in range(FACES):
        if out[hand + face] == 0:
            continue
        rank = face // 4
        first = hand + 4 * rank
        held = out[first] + out[first + 1] + out[first + 2] + out[first + 3]
        out[offsets[_RANK_UNSEEN] + face] = (4 * decks - out[ranks + rank]) - held
        out[offsets[_HELD_JACK] + face] = 1 if rank == JACK else 0
        takes = top >= 0 and (rank == RANK_OF[top] or (rank == JACK and cfg[JACKS_WILD] == 1))
        if not takes:
            out[offsets[_LAY_POINTS] + face] = centre_points + table[face]
            continue
        gain = centre_points + table[face]
        if pile_len == 1 and rank == RANK_OF[top]:
            bonus = cfg[JACK_KSERI] if rank == JACK else (
                cfg[DOUBLE_KSERI] if cfg[DOUBLE_KSERI] >= 0 and lone else cfg[KSERI])
            if bonus >= 0 and (cfg[LAST_OK] == 1 or not last_play):
                gain += bonus
                out[offsets[_KSERI_FACES] + face] = 1
        if cfg[JACKS_TABLE] > 0 and all_jacks:
            gain += cfg[JACKS_TABLE]
        if cfg[TWO_CLUBS_BONUS] > 0 and rank == TWO and top % FACES == TWO_CLUBS:
            gain += cfg[TWO_CLUBS_BONUS]
        out[offsets[_CAPTURES] + face] = 1
        out[offsets[_CAPTURE_POINTS] + face] = gain
    out[offsets[_PLAYS_MADE]] = numbers[INDEX]
    out[offsets[_ROUND_INDEX]] = numbers[ROUND]
    for i in range(out.shape[0]):
        out[i] *= scales[i]


@compiled
def _advance(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
             holds: NDArray[np.float64], card_weight: float, all_points: int, policies: NDArray[np.int64],
             whole_match: bool, match_reward: float, numbers: NDArray[np.int64], per_side: NDArray[np.int64],
             hands: NDArray[np.int64], lengths: NDArray[np.int64], pile: NDArray[np.int64],
             dealt: NDArray[np.int8], centre: NDArray[np.int8], public: NDArray[np.bool_],
             public_rank: NDArray[np.int64], public_face: NDArray[np.int64], state: NDArray[np.uint64],
             deck: NDArray[np.int64], unseen: NDArray[np.int64]) -> tuple[float, bool]:
    """Let the other seats play up to the learner's next turn (``KseriEnv._advance``): the
    reward on the way, and whether the episode is over."""
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    total = cfg[BATCHES] * players * cfg[BATCH_SIZE]
    me = numbers[SEAT]
    reward = 0.0
    while True:
        while numbers[TURN] >= 0 and numbers[TURN] != me:
            seat = numbers[TURN]
            policy = policies[seat]
            length = lengths[seat]
            if policy == RANDOM:
                state[0], position = draw(state[0], length)
            elif policy == GREEDY:
                pile_len = numbers[PILE_LEN]
                top = pile[pile_len - 1] if pile_len else -1
                visible = numbers[PILE_POINTS] - numbers[HIDDEN_POINTS]
                position = greedy_choice(cfg, table, hands, seat, length, top, pile_len, visible,
                                         total - numbers[INDEX])
            else:
                position = _expert_choice(cfg, table, holds, card_weight, all_points, numbers, hands, lengths,
                                          pile, dealt, centre, public, public_rank, unseen, seat)
            _play(cfg, table, side_of, numbers, per_side, hands, lengths, pile, dealt, public, public_rank,
                  public_face, position)
        if numbers[TURN] == me:
            return reward, False
        side = side_of[me]
        others = 0
        for other in range(sides):
            if other != side:
                others += per_side[POINTS, other]
        reward += per_side[POINTS, side] - others / (sides - 1)
        if numbers[WINNER] >= 0:
            reward += match_reward if numbers[WINNER] == side else -match_reward
            return reward, True
        if not whole_match:
            return reward, True
        numbers[ROUND] += 1
        numbers[DEALER] = numbers[DEALER] + 1 if numbers[DEALER] + 1 < players else 0
        _start_round(cfg, table, numbers, per_side, hands, lengths, pile, dealt, centre, public, public_rank,
                     public_face, state, deck)


@compiled
def _reset(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
           holds: NDArray[np.float64], card_weight: float, all_points: int, policies: NDArray[np.int64],
           whole_match: bool, match_reward: float, fixed_seat: int, numbers: NDArray[np.int64],
           per_side: NDArray[np.int64], hands: NDArray[np.int64], lengths: NDArray[np.int64],
           pile: NDArray[np.int64], dealt: NDArray[np.int8], centre: NDArray[np.int8],
           public: NDArray[np.bool_], public_rank: NDArray[np.int64], public_face: NDArray[np.int64],
           state: NDArray[np.uint64], deck: NDArray[np.int64], unseen: NDArray[np.int64]) -> None:
    """Start an episode: a new match (the learner's seat, when not fixed, and the first dealer
    drawn from the environment's stream), played up to the learner's first turn."""
    players = cfg[PLAYERS]
    numbers[:] = 0
    per_side[TOTALS] = 0
    if fixed_seat >= 0:
        numbers[SEAT] = fixed_seat
    else:
        state[0], seat = draw(state[0], players)
        numbers[SEAT] = seat
    state[0], dealer = draw(state[0], players)
    numbers[DEALER] = dealer
    numbers[GOAL] = cfg[TARGET]
    numbers[WINNER] = -1
    _start_round(cfg, table, numbers, per_side, hands, lengths, pile, dealt, centre, public, public_rank,
                 public_face, state, deck)
    _advance(cfg, table, side_of, holds, card_weight, all_points, policies, whole_match, match_reward,
             numbers, per_side, hands, lengths, pile, dealt, centre, public, public_rank, public_face, state,
             deck, unseen)


@compiled
def reset_envs(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
               holds: NDArray[np.float64], card_weight: float, all_points: int, policies: NDArray[np.int64],
               whole_match: bool, match_reward: float, fixed_seat: int, offsets: NDArray[np.int64],
               constants: NDArray[np.float32], scales: NDArray[np.float32], numbers: NDArray[np.int64],
               per_side: NDArray[np.int64], hands: NDArray[np.int64], lengths: NDArray[np.int64],
               pile: NDArray[np.int64], dealt: NDArray[np.int8], centre: NDArray[np.int8],
               public: NDArray[np.bool_], public_rank: NDArray[np.int64], public_face: NDArray[np.int64],
               rng: NDArray[np.uint64], which: NDArray[np.bool_], observations: NDArray[np.float32],
               masks: NDArray[np.int8]) -> None:
    """Reset the environments where ``which`` is true and write their observations."""
    deck = np.zeros(cfg[DECK_SIZE], np.int64)
    unseen = np.zeros(RANKS, np.int64)
    for i in range(numbers.shape[0]):
        if not which[i]:
            continue
        _reset(cfg, table, side_of, holds, card_weight, all_points, policies, whole_match, match_reward,
               fixed_seat, numbers[i], per_side[i], hands[i], lengths[i], pile[i], dealt[i], centre[i],
               public[i], public_rank[i], public_face[i], rng[i:i + 1], deck, unseen)
        _encode(cfg, table, side_of, offsets, constants, scales, numbers[i], per_side[i], hands[i],
                lengths[i], pile[i], dealt[i], centre[i], public_face[i], observations[i], masks[i])


@compiled
def step_envs(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
              holds: NDArray[np.float64], card_weight: float, all_points: int, policies: NDArray[np.int64],
              whole_match: bool, match_reward: float, fixed_seat: int, offsets: NDArray[np.int64],
              constants: NDArray[np.float32], scales: NDArray[np.float32], numbers: NDArray[np.int64],
              per_side: NDArray[np.int64], hands: NDArray[np.int64], lengths: NDArray[np.int64],
              pile: NDArray[np.int64], dealt: NDArray[np.int8], centre: NDArray[np.int8],
              public: NDArray[np.bool_], public_rank: NDArray[np.int64], public_face: NDArray[np.int64],
              rng: NDArray[np.uint64], actions: NDArray[np.int64], illegal_reward: float,
              observations: NDArray[np.float32], masks: NDArray[np.int8], rewards: NDArray[np.float64],
              terminated: NDArray[np.bool_], illegal: NDArray[np.bool_]) -> None:
    """One step of every environment (next-step autoreset): an environment whose episode
    ended at the last step starts a new one, reward 0; otherwise its learner plays the card of
    face ``actions[i]`` (the first deck's copy when it holds two; an action it cannot play
    changes nothing and earns ``illegal_reward``) and the other seats play on."""
    deck = np.zeros(cfg[DECK_SIZE], np.int64)
    unseen = np.zeros(RANKS, np.int64)
    for i in range(numbers.shape[0]):
        row = numbers[i]
        rewards[i] = 0.0
        terminated[i] = False
        illegal[i] = False
        if row[DONE] == 1:
            _reset(cfg, table, side_of, holds, card_weight, all_points, policies, whole_match, match_reward,
                   fixed_seat, row, per_side[i], hands[i], lengths[i], pile[i], dealt[i], centre[i],
                   public[i], public_rank[i], public_face[i], rng[i:i + 1], deck, unseen)
        else:
            me = row[SEAT]
            action = actions[i]
            position = -1
            if row[TURN] == me and 0 <= action < FACES:
                for k in range(lengths[i, me]):
                    card = hands[i, me, k]
                    if card % FACES == action and (position < 0 or card < hands[i, me, position]):
                        position = k
            if position < 0:
                rewards[i] = illegal_reward
                illegal[i] = True
            else:
                _play(cfg, table, side_of, row, per_side[i], hands[i], lengths[i], pile[i], dealt[i],
                      public[i], public_rank[i], public_face[i], position)
                reward, over = _advance(cfg, table, side_of, holds, card_weight, all_points, policies,
                                        whole_match, match_reward, row, per_side[i], hands[i], lengths[i],
                                        pile[i], dealt[i], centre[i], public[i], public_rank[i],
                                        public_face[i], rng[i:i + 1], deck, unseen)
                rewards[i] = reward
                terminated[i] = over
                row[DONE] = 1 if over else 0
        _encode(cfg, table, side_of, offsets, constants, scales, row, per_side[i], hands[i], lengths[i],
                pile[i], dealt[i], centre[i], public_face[i], observations[i], masks[i])


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the observation's fields go (``kseri.agents.encoding``'s layout, passed in)."""

    offsets: NDArray[np.int64]
    """Where each field of :data:`ENCODED` starts in the vector."""
    constants: NDArray[np.float32]
    """The unscaled vector with only the rule fields filled (they never change)."""
    scales: NDArray[np.float32]
    """What each slot is multiplied by (one over its field's scale)."""


class EnvBatch:
    """``count`` environments under ``rules``, their state in arrays, stepped by compiled code.

    ``policies`` names a policy (``random``, ``greedy``, ``expert``) for every seat or one per
    seat (the learner's entry is not used); ``seat`` is the learner's seat, or ``None`` for a
    random seat each episode; ``whole_match`` makes an episode a match instead of a round.
    After :meth:`reset` or :meth:`step`, :attr:`observations`, :attr:`masks`,
    :attr:`rewards`, :attr:`terminated` and :attr:`illegal` hold each environment's result.
    """

    def __init__(self, rules: Rules, count: int, layout: Layout, *, policies: str | list[str] = "greedy",
                 seat: int | None = 0, whole_match: bool = False, match_reward: float = 0.0,
                 illegal_reward: float = -1.0) -> None:
        if count < 1:
            raise ValueError(f"the number of environments must be at least 1, not {count}")
        players = rules.players
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1} or None, not {seat}")
        codes = policy_codes(rules, policies)
        if (codes > EXPERT).any():
            raise ValueError("the other seats follow a policy: random, greedy or expert")
        self.rules = rules
        self.count = count
        compiled_rules = flatten(rules)
        self._options = compiled_rules.options
        self._table = compiled_rules.table
        self._side_of = compiled_rules.side_of
        self._holds = compiled_rules.holds
        self._card_weight = compiled_rules.card_weight
        self._all_points = int(compiled_rules.table.sum())
        self._codes = codes
        self._whole_match = whole_match
        self._match_reward = float(match_reward)
        self._fixed_seat = -1 if seat is None else seat
        self._layout = layout
        size = int(layout.constants.shape[0])
        self.numbers = np.zeros((count, NUMBERS), np.int64)
        self.per_side = np.zeros((count, SIDE_ROWS, rules.sides), np.int64)
        self.hands = np.zeros((count, players, rules.batch_size), np.int64)
        self.lengths = np.zeros((count, players), np.int64)
        self.pile = np.zeros((count, rules.deck_size), np.int64)
        self.dealt = np.zeros((count, rules.batches, players, rules.batch_size), np.int8)
        self.centre = np.zeros((count, rules.centre_size), np.int8)
        self.public = np.zeros((count, rules.deck_size), np.bool_)
        self.public_rank = np.zeros((count, RANKS), np.int64)
        self.public_face = np.zeros((count, FACES), np.int64)
        self.rng = np.zeros(count, np.uint64)
        self.illegal_reward = float(illegal_reward)
        self.observations = np.zeros((count, size), np.float32)
        self.masks = np.zeros((count, FACES), np.int8)
        self.rewards = np.zeros(count, np.float64)
        self.terminated = np.zeros(count, np.bool_)
        self.illegal = np.zeros(count, np.bool_)

    def reset(self, which: NDArray[np.bool_], seeds: list[int | None] | None = None) -> None:
        """Start new episodes where ``which`` is true; ``seeds[i]`` (an int), where given,
        restarts environment ``i``'s random stream first (its deals, random seats and random
        policies); otherwise the stream goes on."""
        if seeds is not None:
            for index, seed in enumerate(seeds):
                if seed is not None:
                    self.rng[index] = stream(np.uint64(seed % 2**64), 0)
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.illegal[:] = False
        layout = self._layout
        reset_envs(self._options, self._table, self._side_of, self._holds, self._card_weight,
                   self._all_points, self._codes, self._whole_match, self._match_reward, self._fixed_seat,
                   layout.offsets, layout.constants, layout.scales, self.numbers, self.per_side, self.hands,
                   self.lengths, self.pile, self.dealt, self.centre, self.public, self.public_rank,
                   self.public_face, self.rng, np.ascontiguousarray(which, np.bool_), self.observations,
                   self.masks)

    def step(self, actions: NDArray[np.integer]) -> None:
        """One step of every environment (see :func:`step_envs`)."""
        layout = self._layout
        step_envs(self._options, self._table, self._side_of, self._holds, self._card_weight,
                  self._all_points, self._codes, self._whole_match, self._match_reward, self._fixed_seat,
                  layout.offsets, layout.constants, layout.scales, self.numbers, self.per_side, self.hands,
                  self.lengths, self.pile, self.dealt, self.centre, self.public, self.public_rank,
                  self.public_face, self.rng, np.ascontiguousarray(actions, np.int64), self.illegal_reward,
                  self.observations, self.masks,
                  self.rewards, self.terminated, self.illegal)

    def deal(self, index: int) -> tuple[int, list[list[list[Card]]], list[Card], int, Card | None]:
        """Environment ``index``'s current round as dealt: the dealer, ``hands[batch][seat]``,
        the centre bottom to top, how many of its cards are face down, and the shown card (for
        replays and tests: the whole deal, hidden cards included)."""
        numbers = self.numbers[index]
        dealt = self.dealt[index]
        hands = [[[ALL_CARDS[card] for card in hand] for hand in batch] for batch in dealt.tolist()]
        shown = int(_shown(self._options, numbers, dealt))
        face_down = int(self._options[FACE_DOWN])
        centre = [ALL_CARDS[card] for card in self.centre[index].tolist()]
        return int(numbers[DEALER]), hands, centre, face_down, None if shown < 0 else ALL_CARDS[shown]

    def seats(self) -> NDArray[np.int64]:
        """Each environment's learning seat."""
        return self.numbers[:, SEAT].copy()

    def rounds(self) -> NDArray[np.int64]:
        """Each environment's round number in its match, from 0."""
        return self.numbers[:, ROUND].copy()

    def totals(self) -> NDArray[np.int64]:
        """Each environment's match points per side."""
        return self.per_side[:, TOTALS, :].copy()


__all__ = ["ENCODED", "EnvBatch", "Layout", "reset_envs", "step_envs"]

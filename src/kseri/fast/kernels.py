"""The compiled kernels of :mod:`kseri.fast`: dealing, the play step, policies, scoring and matches.

Everything here runs under numba in nopython mode; :mod:`kseri.fast` is the typed face that
checks the input and builds the arguments. A rule set arrives as one
:class:`~kseri.fast.flat.FlatRules` and a round in play as one record of
:data:`~kseri.fast.flat.STATE` (both from :mod:`kseri.fast.flat`). The machine code is cached
on disk (``cache=True``): the compile is paid once per machine, later processes load it.

The rule of play is written here once, in :func:`play_card` (``Match.play``, ``_marks_of``,
dealing the next batch) and :func:`end_round` (``_end_round``, ``_score``), on the state
record; whole rounds (:func:`play_round`), matches, the master's rollouts (:mod:`kseri.fast.search`)
and the learning environments (:mod:`kseri.fast.env`) all play through it. The policies
follow the ``greedy`` and ``expert`` agents of :mod:`kseri.agents` exactly, down to
floating-point order and ties, and the expert is written once (:func:`expert_choice`).
Differential tests (``tests/fast``, ``tests/agents``, ``tests/rl``) prove both against the
engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

from kseri.fast.flat import (
    BATCH_SIZE,
    BATCHES,
    CENTRE_DEAL,
    CENTRE_SIZE,
    COUNTS,
    DECK_SIZE,
    DOUBLE_KSERI,
    ESCALATION,
    EVERY_TIED,
    EXPERT,
    FACE_DOWN,
    FACES,
    GREEDY,
    JACK_KSERI,
    JACKS_TABLE,
    JACKS_WILD,
    KSERI,
    KSERI_POINTS,
    KSERIS,
    LAST_BONUS,
    LAST_OK,
    LOOSE,
    MAJORITY,
    MARKS,
    OPEN_POINTS,
    PER_RANK,
    PISTI,
    PLAYERS,
    POINTS,
    RANDOM,
    RANKS,
    REDEAL,
    SIDES,
    TARGET,
    TOTALS,
    TWO_CLUBS_BONUS,
)

Function = TypeVar("Function", bound=Callable[..., Any])

State = Any
"""A :data:`~kseri.fast.flat.STATE` record as the compiled code sees it (numba's record)."""
FlatRules = Any
"""A :data:`~kseri.fast.flat.RULES` record (``flatten(rules).packed``) as the compiled code sees it."""


def compiled(function: Function) -> Function:
    """``function`` compiled in nopython mode, its machine code cached on disk."""
    return cast(Function, njit(cache=True, nogil=True)(function))


def inlined(function: Function) -> Function:
    """``function`` compiled as :func:`compiled` does, and inlined into its compiled callers
    (numba's ``inline="always"``): the play step and its parts, which a call would slow."""
    return cast(Function, njit(cache=True, nogil=True, inline="always")(function))


JACK: Final = 9
TWO: Final = 0
TWO_CLUBS: Final = 0

JACK_HOLD: Final = 2.5
TEMPO: Final = 0.8
SHED_COST: Final = 0.25
"""The expert's constants (``kseri.agents.expert``; a test checks they agree)."""

MAX_ROUNDS: Final = 10_000
"""Rounds a simulated match may last before it is reported as endless."""

RANK_OF: Final = np.array([card % 52 >> 2 for card in range(104)], np.int64)
"""The rank of each card number (a constant of the compiled code)."""

_GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
_MIX1: Final = np.uint64(0xBF58476D1CE4E5B9)
_MIX2: Final = np.uint64(0x94D049BB133111EB)
_S30: Final = np.uint64(30)
_S27: Final = np.uint64(27)
_S31: Final = np.uint64(31)
_S32: Final = np.uint64(32)
_S11: Final = np.uint64(11)
_UNIT: Final = 2.0 ** -53


# -- random numbers: SplitMix64, one stream per round -----------------------------------------


@compiled
def mix(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: a well-spread 64-bit hash of ``z``."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@compiled
def stream(seed: np.uint64, index: int) -> np.uint64:
    """The starting state of stream ``index`` of ``seed`` (each round or match has its own)."""
    return mix(seed ^ mix(np.uint64(index) * _GOLDEN + _GOLDEN))


@compiled
def draw(state: np.uint64, bound: int) -> tuple[np.uint64, int]:
    """The next state, and a number in ``0..bound-1`` (multiply-shift on 32 bits; the bias is
    under ``bound / 2**32``)."""
    state = state + _GOLDEN
    return state, int(np.int64(((mix(state) >> _S32) * np.uint64(bound)) >> _S32))


@compiled
def uniform(state: np.uint64) -> tuple[np.uint64, float]:
    """The next state, and a number in ``[0, 1)`` (53 bits)."""
    state = state + _GOLDEN
    return state, float(mix(state) >> _S11) * _UNIT


# -- dealing ----------------------------------------------------------------------------------


@compiled
def shuffle_from(deck: NDArray[np.int64], start: int, state: NDArray[np.uint64]) -> None:
    """Fisher-Yates shuffle of ``deck[start:]`` (two swaps from each 64-bit draw, 32 bits each)."""
    rng = state[0]
    low_bits = np.uint64(0xFFFFFFFF)
    bits = np.uint64(0)
    for i in range(deck.shape[0] - 1, start, -1):
        if (deck.shape[0] - 1 - i) % 2 == 0:
            rng = rng + _GOLDEN
            bits = mix(rng)
            j = start + int(np.int64(((bits >> _S32) * np.uint64(i - start + 1)) >> _S32))
        else:
            j = start + int(np.int64(((bits & low_bits) * np.uint64(i - start + 1)) >> _S32))
        deck[i], deck[j] = deck[j], deck[i]
    state[0] = rng


@compiled
def deal(cfg: NDArray[np.int64], dealer: int, state: NDArray[np.uint64], deck: NDArray[np.int64],
         centre: NDArray[np.int8], hands: NDArray[np.int8]) -> None:
    """Shuffle and deal a round into ``centre`` and ``hands`` as ``Deal.shuffle`` does, with
    this module's random numbers instead of SHA-512: the first batch, the centre by the rules'
    procedure, then the stock, batch after batch. ``hands`` is ``[batch, seat, k]``, or the
    same in one flat row (a :data:`~kseri.fast.flat.STATE`'s ``dealt``)."""
    players = cfg[PLAYERS]
    size = cfg[BATCH_SIZE]
    count = cfg[CENTRE_SIZE]
    face_down = cfg[FACE_DOWN]
    first = players * size
    top = first + count
    for i in range(deck.shape[0]):
        deck[i] = i
    shuffle_from(deck, 0, state)
    if cfg[CENTRE_DEAL] == REDEAL:
        while RANK_OF[deck[top - 1]] == JACK or (
            count > 1 and RANK_OF[deck[top - 1]] == RANK_OF[deck[top - 2]]
        ):
            shuffle_from(deck, first, state)
    else:
        stock = deck.shape[0] - top
        middle = stock // 2
        for position in range(first + face_down, top):
            while RANK_OF[deck[position]] == JACK and middle > 0:
                # stock.insert(middle, jack) then stock.pop(0) as the new centre card
                jack = deck[position]
                deck[position] = deck[top]
                for k in range(top, top + middle - 1):
                    deck[k] = deck[k + 1]
                deck[top + middle - 1] = jack
    for i in range(count):
        centre[i] = deck[first + i]
    dealt = hands.reshape(hands.size)
    for batch in range(cfg[BATCHES]):
        start = 0 if batch == 0 else first * batch + count
        for seat in range(players):
            offset = start + (seat - dealer - 1) % players * size
            for k in range(size):
                dealt[(batch * players + seat) * size + k] = deck[offset + k]


# -- the state of a round: the rule of play ---------------------------------------------------


@inlined
def deal_batch(rules: FlatRules, state: State, batch: int) -> None:
    """Give every seat its hand of ``batch`` from the deal."""
    players = rules.options[PLAYERS]
    size = rules.options[BATCH_SIZE]
    hands = state.hands
    dealt = state.dealt
    for seat in range(players):
        start = (batch * players + seat) * size
        for k in range(size):
            hands[seat, k] = dealt[start + k]
        state.lengths[seat] = size
    state.batch = batch + 1


@inlined
def start_round(rules: FlatRules, state: State) -> None:
    """Start the round dealt in ``state`` (its ``dealer``, ``centre`` and ``dealt``):
    ``Match._start``, with every round count at zero and the match's left as they are."""
    cfg = rules.options
    table = rules.table
    per_side = state.per_side
    for row in range(TOTALS):
        for side in range(cfg[SIDES]):
            per_side[row, side] = 0
    memory = state.memory == 1
    if memory:
        state.public[:] = 0
        state.public_rank[:] = 0
        state.public_face[:] = 0
    hidden = cfg[FACE_DOWN]
    pile_points = 0
    plain = 0
    hidden_points = 0
    for i in range(cfg[CENTRE_SIZE]):
        card = np.int64(state.centre[i])
        state.pile[i] = card
        pile_points += table[card]
        if RANK_OF[card] != JACK:
            plain += 1
        if i < hidden:
            hidden_points += table[card]
        elif memory:
            state.public[card] = 1
            state.public_rank[RANK_OF[card]] += 1
            state.public_face[card % FACES] += 1
    deal_batch(rules, state, 0)
    state.turn = state.dealer + 1 if state.dealer + 1 < cfg[PLAYERS] else 0
    state.index = 0
    state.pile_len = cfg[CENTRE_SIZE]
    state.pile_points = pile_points
    state.pile_plain = plain
    state.hidden = hidden
    state.hidden_points = hidden_points
    state.first_capturer = -1
    state.last_capturer = -1
    state.chain = 0
    state.public_count = cfg[CENTRE_SIZE] - hidden
    state.public_points = pile_points - hidden_points
    state.swept = 0


@inlined
def play_card(rules: FlatRules, state: State, position: int) -> int:
    """The seat to play plays the card at ``position`` of its hand (``Match.play`` and
    ``_marks_of``); the next batch is dealt after the last card of a batch, and the round ends,
    swept and scored, after its last play (:func:`end_round`). Returns the cards taken (0: the
    card was laid on the centre)."""
    cfg = rules.options
    table = rules.table
    players = cfg[PLAYERS]
    total = cfg[BATCHES] * players * cfg[BATCH_SIZE]
    seat = state.turn
    hands = state.hands
    length = state.lengths[seat]
    card = hands[seat, position]
    for k in range(position, length - 1):
        hands[seat, k] = hands[seat, k + 1]
    state.lengths[seat] = length - 1
    rank = RANK_OF[card]
    if state.memory == 1:
        state.public[card] = 1
        state.public_rank[rank] += 1
        state.public_face[card % FACES] += 1
        state.public_count += 1
        state.public_points += table[card]
    index = state.index + 1
    state.index = index
    pile = state.pile
    pile_len = state.pile_len
    taken = 0
    top = pile[pile_len - 1] if pile_len else -1
    if pile_len and (rank == RANK_OF[top] or (rank == JACK and cfg[JACKS_WILD] == 1)):
        per_side = state.per_side
        side = rules.side_of[seat]
        bonus = 0
        kseri = False
        if pile_len == 1 or cfg[JACKS_TABLE] > 0 or cfg[TWO_CLUBS_BONUS] > 0:
            if pile_len == 1 and rank == RANK_OF[top]:
                value = cfg[KSERI]
                if rank == JACK:
                    value = cfg[JACK_KSERI]
                elif cfg[DOUBLE_KSERI] >= 0 and state.chain == 2:
                    value = cfg[DOUBLE_KSERI]
                if value >= 0 and (cfg[LAST_OK] == 1 or index < total):
                    bonus += value
                    per_side[KSERI_POINTS, side] += value
                    per_side[KSERIS, side] += 1
                    kseri = True
            if cfg[JACKS_TABLE] > 0 and state.pile_plain == 0:
                bonus += cfg[JACKS_TABLE]
            if cfg[TWO_CLUBS_BONUS] > 0 and rank == TWO and top % FACES == TWO_CLUBS:
                bonus += cfg[TWO_CLUBS_BONUS]
        pile_points = state.pile_points
        per_side[POINTS, side] += pile_points + table[card] + bonus
        per_side[OPEN_POINTS, side] += pile_points - state.hidden_points + table[card]
        per_side[MARKS, side] += bonus
        per_side[COUNTS, side] += pile_len + 1
        if state.first_capturer < 0:
            state.first_capturer = seat
            state.hidden = 0
            state.hidden_points = 0
        state.last_capturer = seat
        state.pile_len = 0
        state.pile_points = 0
        state.pile_plain = 0
        state.chain = 1 if kseri else 0
        taken = pile_len + 1
    else:
        pile[pile_len] = card
        state.pile_len = pile_len + 1
        state.pile_points += table[card]
        if rank != JACK:
            state.pile_plain += 1
        state.chain = 2 if pile_len == 0 and state.chain == 1 else 0
    if length > 1 or seat != state.dealer:  # the dealer plays a batch's last card
        state.turn = seat + 1 if seat + 1 < players else 0
    elif index < total:
        deal_batch(rules, state, state.batch)
        state.turn = seat + 1 if seat + 1 < players else 0
    else:
        end_round(rules, state)
    return taken


@inlined
def end_round(rules: FlatRules, state: State) -> None:
    """``Match._end_round``: the last capturer sweeps the centre (it stays in ``pile`` for the
    record), with the last-capture bonus, then the majority bonus; nobody is to play."""
    cfg = rules.options
    sides = cfg[SIDES]
    per_side = state.per_side
    state.turn = -1
    last = state.last_capturer
    if last >= 0:
        side = rules.side_of[last]
        per_side[POINTS, side] += state.pile_points + cfg[LAST_BONUS]
        per_side[COUNTS, side] += state.pile_len
        state.swept = 1
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


@compiled
def settle(cfg: NDArray[np.int64], totals: NDArray[np.int64], target: int) -> tuple[int, int]:
    """``Match._settle``: the winning side after a round (-1: play goes on) and the target."""
    sides = totals.shape[0]
    reached = 0
    winner = -1
    for side in range(sides):
        if totals[side] >= target:
            reached += 1
            winner = side
    if reached < 2:
        return winner, target
    if cfg[ESCALATION] > 0:
        while reached > 1:
            target += cfg[ESCALATION]
            reached = 0
            for side in range(sides):
                if totals[side] >= target:
                    reached += 1
                    winner = side
        return (winner if reached else -1), target
    best = -(1 << 62)
    for side in range(sides):
        if totals[side] >= target:
            best = max(best, totals[side])
    leaders = 0
    for side in range(sides):
        if totals[side] == best:
            leaders += 1
            winner = side
    return (winner if leaders == 1 else -1), target


@compiled
def score_round(rules: FlatRules, state: State) -> None:
    """Add the round's points to the match totals and settle the match (``winner``, ``goal``)."""
    sides = rules.options[SIDES]
    per_side = state.per_side
    for side in range(sides):
        per_side[TOTALS, side] += per_side[POINTS, side]
    winner, goal = settle(rules.options, per_side[TOTALS, :sides], state.goal)
    state.winner = winner
    state.goal = goal


# -- the policies -----------------------------------------------------------------------------


@compiled
def greedy_key(rules: FlatRules, card: int, top_rank: int, pile_len: int, left: int) -> float:
    """``GreedyAgent``'s order of plays as one number, the larger the likelier: a capture before
    any laid card, then the most points gained (the pile's points are the same for every capture),
    then not a Jack, then the fewest points of its own."""
    cfg = rules.options
    rank = RANK_OF[card]
    is_jack = rank == JACK
    points = rules.table[card]
    order = (0.0 if is_jack else 1e3) - points
    if pile_len > 0 and (rank == top_rank or (is_jack and cfg[JACKS_WILD] == 1)):
        gain = points
        if pile_len == 1 and rank == top_rank and (left != 1 or cfg[LAST_OK] == 1):
            gain += max(cfg[JACK_KSERI], 0) if is_jack else cfg[KSERI]
        return float(1e9 + gain * 1e4 + order)
    return float(order)


@compiled
def greedy_choice(rules: FlatRules, state: State) -> int:
    """The position in the hand of the seat to play of ``GreedyAgent``'s play: the most points
    now, then a capture, then not a Jack, then the fewest points (:func:`greedy_key`); the first
    such card on ties."""
    cfg = rules.options
    seat = state.turn
    pile_len = state.pile_len
    top_rank = RANK_OF[state.pile[pile_len - 1]] if pile_len else -1
    left = cfg[BATCHES] * cfg[PLAYERS] * cfg[BATCH_SIZE] - state.index
    best = 0
    best_key = -1e300
    for position in range(state.lengths[seat]):
        key = greedy_key(rules, state.hands[seat, position], top_rank, pile_len, left)
        if key > best_key:
            best, best_key = position, key
    return best


@compiled
def holds_any(holds: NDArray[np.float64], pool: int, hand: int, wanted: int) -> float:
    """The chance that ``hand`` cards drawn from ``pool`` include one of ``wanted`` (the
    expert's ``holds_any``, read from its table)."""
    if wanted <= 0 or hand <= 0:
        return 0.0
    if pool <= 0 or wanted >= pool or hand > pool:
        return 1.0
    return float(holds[pool, hand, wanted])


@compiled
def expert_value(rules: FlatRules, card: int, top_rank: int, pile_len: int, pile_points: float,
                 unseen: NDArray[np.int64], pool: int, opp_hand: int, left: int, forced_rank: int) -> float:
    """``Tactics.value``: a capture's gain, or a laid card's expected loss, in points."""
    cfg = rules.options
    card_weight: float = rules.card_weight
    rank = RANK_OF[card]
    points = int(rules.table[card])
    is_jack = rank == JACK
    jack_kseri = max(cfg[JACK_KSERI], 0)
    last_ok = cfg[LAST_OK] == 1
    jacks_wild = cfg[JACKS_WILD] == 1
    if pile_len and (rank == top_rank or (is_jack and jacks_wild)):
        gain = pile_points + points + card_weight * (pile_len + 1)
        if pile_len == 1 and rank == top_rank and (left > 1 or last_ok):
            gain += jack_kseri if is_jack else cfg[KSERI]
        elif is_jack and left > opp_hand + 1:
            gain -= JACK_HOLD
        return gain + (TEMPO if opp_hand else 0.0)
    stake = pile_points + points + card_weight * (pile_len + 1)
    kseri = 0.0
    if pile_len == 0 and (left > 2 or last_ok):
        kseri = float(jack_kseri if is_jack else cfg[KSERI])
    same = 1.0 if rank == forced_rank else holds_any(rules.holds, pool, opp_hand, unseen[rank])
    if is_jack or not jacks_wild:
        either = same
    else:
        jacks = unseen[JACK]
        either = 1.0 if forced_rank == JACK else holds_any(rules.holds, pool, opp_hand, unseen[rank] + jacks)
        either = max(either, same)
    loss = same * (stake + kseri) + (either - same) * stake + SHED_COST * points
    if is_jack and left > 1:
        loss += JACK_HOLD
    return -loss


@compiled
def shown_card(rules: FlatRules, state: State) -> int:
    """Pisti's shown card (the dealer's last), or -1."""
    cfg = rules.options
    if cfg[CENTRE_DEAL] != PISTI:
        return -1
    players = cfg[PLAYERS]
    size = cfg[BATCH_SIZE]
    return int(state.dealt[((cfg[BATCHES] - 1) * players + state.dealer) * size + size - 1])


@compiled
def expert_choice(rules: FlatRules, state: State, knows_deal: bool) -> int:
    """The position of ``ExpertAgent``'s play in the hand of the seat to play (``ranked``):
    what every seat has seen, less its own hand, weighed by :func:`expert_value`. With
    ``knows_deal`` the seat also counts the face-down cards it took and Pisti's shown card (a
    player's memory); without, only what every seat has seen (the master's rollouts, whose
    worlds know no face-down cards). Each card's rating is left in ``state.ratings`` (the
    opponent model's softmax reads them)."""
    cfg = rules.options
    table = rules.table
    players = cfg[PLAYERS]
    per_batch = players * cfg[BATCH_SIZE]
    seat = state.turn
    hands = state.hands
    length = state.lengths[seat]
    unseen = state.unseen
    for rank in range(RANKS):
        unseen[rank] = cfg[PER_RANK] - state.public_rank[rank]
    pool = cfg[DECK_SIZE] - state.public_count - length
    unseen_points = rules.all_points - state.public_points
    for k in range(length):
        unseen[RANK_OF[hands[seat, k]]] -= 1
        unseen_points -= table[hands[seat, k]]
    next_seat = seat + 1 if seat + 1 < players else 0
    opp_hand = state.lengths[next_seat]
    forced_rank = -1
    if knows_deal:
        if state.first_capturer == seat:  # it took the face-down cards, and saw them
            for i in range(cfg[FACE_DOWN]):
                unseen[RANK_OF[state.centre[i]]] -= 1
                unseen_points -= table[state.centre[i]]
            pool -= cfg[FACE_DOWN]
        shown = shown_card(rules, state)
        if shown >= 0 and state.public[shown] == 0:
            held = False
            for k in range(length):
                if hands[seat, k] == shown:
                    held = True
            if not held:
                unseen[RANK_OF[shown]] -= 1
                unseen_points -= table[shown]
                pool -= 1
                if state.index >= (cfg[BATCHES] - 1) * per_batch and next_seat == state.dealer:
                    forced_rank = RANK_OF[shown]
                    opp_hand -= 1
    mean_hidden = unseen_points / pool if pool else 0.0
    known_points = (state.pile_points - state.hidden_points) + state.hidden * mean_hidden
    pile_len = state.pile_len
    top_rank = RANK_OF[state.pile[pile_len - 1]] if pile_len else -1
    left = cfg[BATCHES] * per_batch - state.index
    position = 0
    best = -1e9
    ratings = state.ratings
    for k in range(length):
        worth = expert_value(rules, hands[seat, k], top_rank, pile_len, known_points, unseen, pool, opp_hand,
                             left, forced_rank)
        ratings[k] = worth
        if worth > best:
            position, best = k, worth
    return position


LOOSE_TEMPERATURE: Final = 2.0
"""Points of the expert's rating by which a play must trail the best to be e times less likely
to the loose expert (:func:`loose_choice`)."""


@compiled
def loose_choice(rules: FlatRules, state: State, knows_deal: bool, rng: np.uint64) -> tuple[np.uint64, int]:
    """The next state of ``rng``, and the position of the loose expert's play: a draw from a
    softmax over :func:`expert_choice`'s ratings at :data:`LOOSE_TEMPERATURE` points (an expert
    that knows what is good and slips, the cheap slips more often than the costly ones)."""
    best = expert_choice(rules, state, knows_deal)
    length = state.lengths[state.turn]
    ratings = state.ratings
    top = ratings[best]
    spread = 0.0
    for k in range(length):
        spread += np.exp((ratings[k] - top) / LOOSE_TEMPERATURE)
    rng, ticket = uniform(rng)
    ticket *= spread
    for k in range(length):
        ticket -= np.exp((ratings[k] - top) / LOOSE_TEMPERATURE)
        if ticket < 0.0:
            return rng, k
    return rng, best


# -- whole rounds and matches -------------------------------------------------------------------


@compiled
def play_round(rules: FlatRules, policies: NDArray[np.int64], state: State, given: NDArray[np.int8],
               plays: NDArray[np.int8], owners: NDArray[np.int8], keep_owners: bool) -> int:
    """Play the round dealt in ``state`` to its end; return -1, or the play number of a given
    card that was not in the hand of the seat to play.

    ``plays`` receives the cards in the order played (seats take turns from the dealer's
    left); ``owners``, when kept, the side that captured each card (-1: left in the centre).
    The round's result stays in ``state`` (``per_side``, ``last_capturer``).
    """
    deck_size = rules.options[DECK_SIZE]
    total = rules.options[BATCHES] * rules.options[PLAYERS] * rules.options[BATCH_SIZE]
    start_round(rules, state)
    if keep_owners:
        for card in range(deck_size):
            owners[card] = -1
    hands = state.hands
    lengths = state.lengths
    # the random plays' stream in a local for the round (stored back when it returns): kept in
    # the record, each draw waited on the store of the one before
    rng = state.rng[0]
    for index in range(total):
        seat = state.turn
        policy = policies[seat]
        if policy == RANDOM:  # its hand's order does not matter: the last card takes the gap
            length = lengths[seat]
            rng, position = draw(rng, length)
            card = hands[seat, position]
            hands[seat, position] = hands[seat, length - 1]
            hands[seat, length - 1] = card
            position = length - 1
        elif policy == GREEDY:
            position = greedy_choice(rules, state)
        elif policy == EXPERT:
            position = expert_choice(rules, state, True)
        elif policy == LOOSE:
            rng, position = loose_choice(rules, state, True, rng)
        else:
            wanted = given[index]
            position = -1
            for k in range(lengths[seat]):
                if hands[seat, k] == wanted:
                    position = k
                    break
            if position < 0:
                state.rng[0] = rng
                return index
        card = hands[seat, position]
        plays[index] = card
        taken = play_card(rules, state, position)
        if keep_owners and taken:
            side = rules.side_of[seat]
            owners[card] = side
            for k in range(taken - 1):
                owners[state.pile[k]] = side
    state.rng[0] = rng
    if keep_owners and state.swept:
        side = rules.side_of[state.last_capturer]
        for k in range(state.pile_len):
            owners[state.pile[k]] = side
    return -1


@compiled
def play_rounds(rules: FlatRules, policies: NDArray[np.int64], shuffle: bool, seed: np.uint64,
                dealers: NDArray[np.int8], centres: NDArray[np.int8], dealt: NDArray[np.int8],
                given: NDArray[np.int8], plays: NDArray[np.int8], owners: NDArray[np.int8],
                results: NDArray[np.int64], states: NDArray[Any]) -> int:
    """Play ``results.shape[0]`` rounds in ``states[0]``; return -1, or ``round *
    plays_per_round + play`` of the first given card that was not in the hand of the seat to
    play.

    With ``shuffle`` each round is dealt here, the dealer rotating from seat 0, from stream
    ``round`` of ``seed``, into ``dealers``, ``centres`` and ``dealt`` (of one row when the
    deals are not kept); otherwise the deals are read from them. ``plays``, ``owners`` and
    ``given`` have one row per round, or one row reused when not kept (or not given). Each row
    of ``results`` receives, per side: points, kseri points, kseris, cards captured (4 rows of
    ``sides``), then the last capturer (-1: nobody).
    """
    cfg = rules.options
    count = results.shape[0]
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    deck_size = cfg[DECK_SIZE]
    total = cfg[BATCHES] * players * cfg[BATCH_SIZE]
    keep_owners = owners.shape[0] == count and owners.shape[1] == deck_size and count > 0
    deck = np.zeros(deck_size, np.int64)
    state = states[0]
    deal_rows = dealers.shape[0]
    play_rows = plays.shape[0]
    given_rows = given.shape[0]
    owner_rows = owners.shape[0]
    state.memory = 0
    for seat in range(players):
        if policies[seat] == EXPERT or policies[seat] == LOOSE:
            state.memory = 1
    keep_deals = deal_rows == count and count > 0
    for index in range(count):
        state.rng[0] = stream(seed, index)
        row = index if deal_rows == count else 0
        flat_deal = dealt[row].reshape(total)
        if shuffle:
            state.dealer = index % players
            deal(cfg, index % players, state.rng, deck, state.centre, state.dealt)
            if keep_deals:
                dealers[row] = index % players
                centres[row] = state.centre[:cfg[CENTRE_SIZE]]
                flat_deal[:] = state.dealt[:total]
        else:
            state.dealer = dealers[row]
            state.centre[:cfg[CENTRE_SIZE]] = centres[row]
            state.dealt[:total] = flat_deal
        error = play_round(rules, policies, state, given[index if given_rows == count else 0],
                           plays[index if play_rows == count else 0],
                           owners[index if owner_rows == count else 0], keep_owners)
        if error >= 0:
            return int(index * total + error)
        result = results[index]
        per_side = state.per_side
        for side in range(sides):
            result[side] = per_side[POINTS, side]
            result[sides + side] = per_side[KSERI_POINTS, side]
            result[2 * sides + side] = per_side[KSERIS, side]
            result[3 * sides + side] = per_side[COUNTS, side]
        result[4 * sides] = state.last_capturer
    return -1


@compiled
def play_matches(rules: FlatRules, policies: NDArray[np.int64], seed: np.uint64, results: NDArray[np.int64],
                 states: NDArray[Any]) -> int:
    """Play ``results.shape[0]`` matches to their winners in ``states[0]``, each from its
    stream of ``seed``: a random first dealer, rounds dealt here, the dealer moving one seat on
    each round.

    Each row of ``results`` receives: the winner, the rounds played, the final target, the
    kseris, then each side's total. Returns -1, or the first match that found no winner in
    :data:`MAX_ROUNDS` rounds.
    """
    cfg = rules.options
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    total = cfg[BATCHES] * players * cfg[BATCH_SIZE]
    deck = np.zeros(cfg[DECK_SIZE], np.int64)
    given = np.zeros(1, np.int8)
    plays = np.zeros(total, np.int8)
    owners = np.zeros(1, np.int8)
    state = states[0]
    per_side = state.per_side
    state.memory = 0
    for seat in range(players):
        if policies[seat] == EXPERT or policies[seat] == LOOSE:
            state.memory = 1
    for match in range(results.shape[0]):
        state.rng[0], dealer = draw(stream(seed, match), players)
        state.goal = cfg[TARGET]
        state.winner = -1
        per_side[TOTALS, :] = 0
        kseris = 0
        rounds = 0
        while state.winner < 0:
            if rounds == MAX_ROUNDS:
                return match
            state.dealer = dealer
            deal(cfg, dealer, state.rng, deck, state.centre, state.dealt)
            play_round(rules, policies, state, given, plays, owners, False)
            score_round(rules, state)
            rounds += 1
            for side in range(sides):
                kseris += per_side[KSERIS, side]
            dealer = dealer + 1 if dealer + 1 < players else 0
        row = results[match]
        row[0] = state.winner
        row[1] = rounds
        row[2] = state.goal
        row[3] = kseris
        for side in range(sides):
            row[4 + side] = per_side[TOTALS, side]
    return -1

"""The compiled kernels of :mod:`kseri.fast`: dealing, play, policies, scoring and matches.

Everything here runs under numba in nopython mode on plain NumPy arrays; :mod:`kseri.fast`
is the typed face that checks the input and builds these arrays. A rule set arrives as one
``int64`` array of options (indexed by the constants below), the points of each card, the side
of each seat and the expert's table of odds. The machine code is cached on disk
(``cache=True``): the compile is paid once per machine, later processes load it.

The rules of play follow :class:`kseri.engine.Match` step by step (its ``play``, ``_marks_of``,
``_end_round``, ``_score`` and ``_settle``); the policies follow the ``greedy`` and ``expert``
agents of :mod:`kseri.agents` exactly, down to floating-point order and ties. A differential
test (``tests/fast``) proves both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

Function = TypeVar("Function", bound=Callable[..., Any])


def compiled(function: Function) -> Function:
    """``function`` compiled in nopython mode, its machine code cached on disk."""
    return cast(Function, njit(cache=True, nogil=True)(function))


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

RANDOM: Final = 0
GREEDY: Final = 1
EXPERT: Final = 2
GIVEN: Final = 3
"""Policies, one per seat."""

JACK: Final = 9
TWO_CLUBS: Final = 0
RANKS: Final = 13

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
    procedure, then the stock, batch after batch."""
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
    for batch in range(hands.shape[0]):
        start = 0 if batch == 0 else first * batch + count
        for seat in range(players):
            offset = start + (seat - dealer - 1) % players * size
            for k in range(size):
                hands[batch, seat, k] = deck[offset + k]


# -- the policies -----------------------------------------------------------------------------


@compiled
def greedy_choice(cfg: NDArray[np.int64], table: NDArray[np.int64], hands: NDArray[np.int64], seat: int,
                  length: int, top: int, pile_len: int, visible_points: int, left: int) -> int:
    """The position in ``hands[seat]`` of ``GreedyAgent``'s play: the most points now, then a
    capture, then not a Jack, then the fewest points; the first such card on ties."""
    top_rank = RANK_OF[top] if pile_len else -1
    best = 0
    best_gain = -1
    best_captures = -1
    best_jack = -2
    best_points = -(1 << 30)
    for position in range(length):
        card = hands[seat, position]
        rank = RANK_OF[card]
        is_jack = rank == JACK
        captures = pile_len > 0 and (rank == top_rank or (is_jack and cfg[JACKS_WILD] == 1))
        gain = 0
        if captures:
            gain = table[card] + visible_points
            if pile_len == 1 and rank == top_rank and (left != 1 or cfg[LAST_OK] == 1):
                if is_jack:
                    gain += max(cfg[JACK_KSERI], 0)
                else:
                    gain += cfg[KSERI]
        flag = 1 if captures else 0
        jack = -1 if is_jack else 0
        points = -table[card]
        if gain != best_gain:
            better = gain > best_gain
        elif flag != best_captures:
            better = flag > best_captures
        elif jack != best_jack:
            better = jack > best_jack
        else:
            better = points > best_points
        if better:
            best, best_gain, best_captures, best_jack, best_points = position, gain, flag, jack, points
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
def expert_value(cfg: NDArray[np.int64], table: NDArray[np.int64], holds: NDArray[np.float64],
                 card_weight: float, card: int, top_rank: int, pile_len: int, pile_points: float,
                 unseen: NDArray[np.int64], pool: int, opp_hand: int, left: int, forced_rank: int) -> float:
    """``Tactics.value``: a capture's gain, or a laid card's expected loss, in points."""
    rank = RANK_OF[card]
    points = int(table[card])
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
    same = 1.0 if rank == forced_rank else holds_any(holds, pool, opp_hand, unseen[rank])
    if is_jack or not jacks_wild:
        either = same
    else:
        jacks = unseen[JACK]
        either = 1.0 if forced_rank == JACK else holds_any(holds, pool, opp_hand, unseen[rank] + jacks)
        either = max(either, same)
    loss = same * (stake + kseri) + (either - same) * stake + SHED_COST * points
    if is_jack and left > 1:
        loss += JACK_HOLD
    return -loss


# -- a round ----------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")  # inlined in its callers: about 6% faster
def play_round(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
               holds: NDArray[np.float64], card_weight: float, policies: NDArray[np.int64],
               dealer: int, centre_dealt: NDArray[np.int8], dealt: NDArray[np.int8],
               given: NDArray[np.int8], state: NDArray[np.uint64], plays: NDArray[np.int8],
               owners: NDArray[np.int8], keep_owners: bool, result: NDArray[np.int64],
               hands: NDArray[np.int64], lengths: NDArray[np.int64], pile: NDArray[np.int64],
               public: NDArray[np.bool_], public_rank: NDArray[np.int64], unseen: NDArray[np.int64]) -> int:
    """Play one round from its deal; return -1, or the play number of a given card that was
    not in the hand of the seat to play.

    ``result`` receives, per side: points, kseri points, kseris, cards captured (4 rows of
    ``sides``), then the last capturer (-1: nobody). ``plays`` receives the cards in the
    order played (seats take turns from the dealer's left); ``owners``, when kept, the side
    that captured each card (-1: left in the centre). The other arrays are scratch space.
    """
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    batches = cfg[BATCHES]
    size = cfg[BATCH_SIZE]
    deck_size = cfg[DECK_SIZE]
    per_batch = players * size
    total = batches * per_batch
    jacks_wild = cfg[JACKS_WILD] == 1
    marks_always = cfg[JACKS_TABLE] > 0 or cfg[TWO_CLUBS_BONUS] > 0
    memory = False
    for seat in range(players):
        if policies[seat] == EXPERT:
            memory = True
    for k in range(result.shape[0]):
        result[k] = 0
    # the centre: cards bottom to top, their points, how many are not Jacks, the face-down ones
    pile_len = centre_dealt.shape[0]
    pile_points = 0
    pile_plain = 0
    hidden = cfg[FACE_DOWN]
    hidden_points = 0
    for i in range(pile_len):
        card = centre_dealt[i]
        pile[i] = card
        pile_points += table[card]
        if RANK_OF[card] != JACK:
            pile_plain += 1
        if i < hidden:
            hidden_points += table[card]
    if keep_owners:
        for card in range(deck_size):
            owners[card] = -1
    if memory:
        for card in range(deck_size):
            public[card] = False
        for rank in range(RANKS):
            public_rank[rank] = 0
        for i in range(hidden, pile_len):
            public[centre_dealt[i]] = True
            public_rank[RANK_OF[centre_dealt[i]]] += 1
    public_count = pile_len - hidden
    public_points = pile_points - hidden_points
    all_points = 0
    if memory:
        for card in range(deck_size):
            all_points += table[card]
    shown = int(dealt[batches - 1, dealer, size - 1]) if cfg[CENTRE_DEAL] == PISTI else -1
    last_capturer = -1
    first_capturer = -1
    kseri_before = False  # whether the play before the previous one scored a kseri
    kseri_last = False  # whether the previous play did
    seat = int(dealer)
    rng = state[0]
    for index in range(total):
        if index % per_batch == 0:
            batch = index // per_batch
            for s in range(players):
                for k in range(size):
                    hands[s, k] = dealt[batch, s, k]
                lengths[s] = size
        seat = seat + 1 if seat + 1 < players else 0
        length = lengths[seat]
        policy = policies[seat]
        top = pile[pile_len - 1] if pile_len else -1
        top_rank = RANK_OF[top] if pile_len else -1
        left = total - index
        if policy == RANDOM:
            rng, position = draw(rng, length)
        elif policy == GREEDY:
            visible = pile_points - hidden_points
            position = greedy_choice(cfg, table, hands, seat, length, top, pile_len, visible, left)
        elif policy == EXPERT:
            # ExpertAgent.ranked: what this seat knows, the unseen cards by rank, the odds
            for rank in range(RANKS):
                unseen[rank] = cfg[PER_RANK] - public_rank[rank]
            pool = deck_size - public_count - length
            unseen_points = all_points - public_points
            for k in range(length):
                unseen[RANK_OF[hands[seat, k]]] -= 1
                unseen_points -= table[hands[seat, k]]
            if first_capturer == seat:  # it took the face-down cards, and saw them
                for i in range(cfg[FACE_DOWN]):
                    unseen[RANK_OF[centre_dealt[i]]] -= 1
                    unseen_points -= table[centre_dealt[i]]
                pool -= cfg[FACE_DOWN]
            next_seat = seat + 1 if seat + 1 < players else 0
            opp_hand = lengths[next_seat]
            forced_rank = -1
            if shown >= 0 and not public[shown]:
                held = False
                for k in range(length):
                    if hands[seat, k] == shown:
                        held = True
                if not held:
                    unseen[RANK_OF[shown]] -= 1
                    unseen_points -= table[shown]
                    pool -= 1
                    if index >= (batches - 1) * per_batch and next_seat == dealer:
                        forced_rank = RANK_OF[shown]
                        opp_hand -= 1
            mean_hidden = unseen_points / pool if pool else 0.0
            known_points = (pile_points - hidden_points) + hidden * mean_hidden
            position = 0
            best = -1e9
            for k in range(length):
                worth = expert_value(cfg, table, holds, card_weight, hands[seat, k], top_rank, pile_len,
                                     known_points, unseen, pool, opp_hand, left, forced_rank)
                if worth > best:
                    position, best = k, worth
        else:
            wanted = given[index]
            position = -1
            for k in range(length):
                if hands[seat, k] == wanted:
                    position = k
                    break
            if position < 0:
                state[0] = rng
                return index
        card = hands[seat, position]
        if policy == RANDOM:  # its hand's order does not matter
            hands[seat, position] = hands[seat, length - 1]
        else:
            for k in range(position, length - 1):
                hands[seat, k] = hands[seat, k + 1]
        lengths[seat] = length - 1
        plays[index] = card
        rank = RANK_OF[card]
        if memory:
            public[card] = True
            public_rank[rank] += 1
        public_count += 1
        public_points += table[card]
        kseri_now = False
        if pile_len and (rank == top_rank or (rank == JACK and jacks_wild)):
            side = side_of[seat]
            bonus = 0
            if pile_len == 1 or marks_always:
                if pile_len == 1 and rank == top_rank:
                    value = cfg[KSERI]
                    if rank == JACK:
                        value = cfg[JACK_KSERI]
                    elif cfg[DOUBLE_KSERI] >= 0 and kseri_before:
                        value = cfg[DOUBLE_KSERI]
                    if value >= 0 and (cfg[LAST_OK] == 1 or index + 1 < total):
                        bonus += value
                        result[sides + side] += value
                        result[2 * sides + side] += 1
                        kseri_now = True
                if cfg[JACKS_TABLE] > 0 and pile_plain == 0:
                    bonus += cfg[JACKS_TABLE]
                if cfg[TWO_CLUBS_BONUS] > 0 and rank == 0 and top % 52 == TWO_CLUBS:
                    bonus += cfg[TWO_CLUBS_BONUS]
            result[side] += pile_points + table[card] + bonus
            result[3 * sides + side] += pile_len + 1
            if keep_owners:
                owners[card] = side
                for k in range(pile_len):
                    owners[pile[k]] = side
            if first_capturer < 0:
                first_capturer = seat
                hidden = 0
                hidden_points = 0
            last_capturer = seat
            pile_len = 0
            pile_points = 0
            pile_plain = 0
        else:
            pile[pile_len] = card
            pile_len += 1
            pile_points += table[card]
            if rank != JACK:
                pile_plain += 1
        kseri_before = kseri_last
        kseri_last = kseri_now
    # the sweep, the majority and the last capture
    if last_capturer >= 0:
        side = side_of[last_capturer]
        result[side] += pile_points + cfg[LAST_BONUS]
        result[3 * sides + side] += pile_len
        if keep_owners:
            for k in range(pile_len):
                owners[pile[k]] = side
    most = 0
    for side in range(sides):
        most = max(most, result[3 * sides + side])
    if cfg[MAJORITY] > 0 and most > 0:
        leaders = 0
        for side in range(sides):
            if result[3 * sides + side] == most:
                leaders += 1
        if leaders == 1 or cfg[EVERY_TIED] == 1:
            for side in range(sides):
                if result[3 * sides + side] == most:
                    result[side] += cfg[MAJORITY]
    result[4 * sides] = last_capturer
    state[0] = rng
    return -1


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
def play_rounds(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
                holds: NDArray[np.float64], card_weight: float, policies: NDArray[np.int64],
                shuffle: bool, seed: np.uint64, dealers: NDArray[np.int8], centres: NDArray[np.int8],
                dealt: NDArray[np.int8], given: NDArray[np.int8], plays: NDArray[np.int8],
                owners: NDArray[np.int8], results: NDArray[np.int64]) -> int:
    """Play ``results.shape[0]`` rounds; return -1, or ``round * plays_per_round + play`` of
    the first given card that was not in the hand of the seat to play.

    With ``shuffle`` each round is dealt here, the dealer rotating from seat 0, from stream
    ``round`` of ``seed``, into ``dealers``, ``centres`` and ``dealt`` (of one row when the
    deals are not kept); otherwise the deals are read from them. ``plays``, ``owners`` and
    ``given`` have one row per round, or one row reused when not kept (or not given).
    """
    count = results.shape[0]
    players = cfg[PLAYERS]
    deck_size = cfg[DECK_SIZE]
    total = cfg[BATCHES] * players * cfg[BATCH_SIZE]
    keep_owners = owners.shape[0] == count and owners.shape[1] == deck_size and count > 0
    hands = np.zeros((players, cfg[BATCH_SIZE]), np.int64)
    lengths = np.zeros(players, np.int64)
    pile = np.zeros(deck_size, np.int64)
    deck = np.zeros(deck_size, np.int64)
    public = np.zeros(deck_size, np.bool_)
    public_rank = np.zeros(RANKS, np.int64)
    unseen = np.zeros(RANKS, np.int64)
    state = np.zeros(1, np.uint64)
    deal_rows = dealers.shape[0]
    play_rows = plays.shape[0]
    given_rows = given.shape[0]
    owner_rows = owners.shape[0]
    for index in range(count):
        state[0] = stream(seed, index)
        row = index if deal_rows == count else 0
        if shuffle:
            dealers[row] = index % players
            deal(cfg, index % players, state, deck, centres[row], dealt[row])
        error = play_round(
            cfg, table, side_of, holds, card_weight, policies, int(dealers[row]), centres[row], dealt[row],
            given[index if given_rows == count else 0], state, plays[index if play_rows == count else 0],
            owners[index if owner_rows == count else 0], keep_owners, results[index], hands, lengths, pile,
            public, public_rank, unseen,
        )
        if error >= 0:
            return int(index * total + error)
    return -1


@compiled
def play_matches(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
                 holds: NDArray[np.float64], card_weight: float, policies: NDArray[np.int64],
                 seed: np.uint64, results: NDArray[np.int64]) -> int:
    """Play ``results.shape[0]`` matches to their winners, each from its stream of ``seed``:
    a random first dealer, rounds dealt here, the dealer moving one seat on each round.

    Each row of ``results`` receives: the winner, the rounds played, the final target, the
    kseris, then each side's total. Returns -1, or the first match that found no winner in
    :data:`MAX_ROUNDS` rounds.
    """
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    deck_size = cfg[DECK_SIZE]
    batches = cfg[BATCHES]
    size = cfg[BATCH_SIZE]
    hands = np.zeros((players, size), np.int64)
    lengths = np.zeros(players, np.int64)
    pile = np.zeros(deck_size, np.int64)
    deck = np.zeros(deck_size, np.int64)
    public = np.zeros(deck_size, np.bool_)
    public_rank = np.zeros(RANKS, np.int64)
    unseen = np.zeros(RANKS, np.int64)
    state = np.zeros(1, np.uint64)
    centre = np.zeros(cfg[CENTRE_SIZE], np.int8)
    dealt = np.zeros((batches, players, size), np.int8)
    given = np.zeros(1, np.int8)
    plays = np.zeros(batches * players * size, np.int8)
    owners = np.zeros(1, np.int8)
    result = np.zeros(4 * sides + 1, np.int64)
    totals = np.zeros(sides, np.int64)
    for match in range(results.shape[0]):
        state[0], dealer = draw(stream(seed, match), players)
        target = cfg[TARGET]
        totals[:] = 0
        kseris = 0
        winner = -1
        rounds = 0
        while winner < 0:
            if rounds == MAX_ROUNDS:
                return match
            deal(cfg, dealer, state, deck, centre, dealt)
            play_round(cfg, table, side_of, holds, card_weight, policies, dealer, centre, dealt, given, state,
                       plays, owners, False, result, hands, lengths, pile, public, public_rank, unseen)
            rounds += 1
            for side in range(sides):
                totals[side] += result[side]
                kseris += result[2 * sides + side]
            winner, target = settle(cfg, totals, target)
            dealer = dealer + 1 if dealer + 1 < players else 0
        row = results[match]
        row[0] = winner
        row[1] = rounds
        row[2] = target
        row[3] = kseris
        for side in range(sides):
            row[4 + side] = totals[side]
    return -1


# -- the master's rollouts ------------------------------------------------------------------------


@compiled
def sim_choice(cfg: NDArray[np.int64], table: NDArray[np.int64], holds: NDArray[np.float64],
               card_weight: float, hands: NDArray[np.int64], lengths: NDArray[np.int64], seat: int,
               top_rank: int, pile_len: int, pile_points: int, seen: NDArray[np.int64], seen_total: int,
               left: int, unseen: NDArray[np.int64]) -> int:
    """``Tactics.choose_in``: the position of the expert's play from public memory (``seen``)."""
    length = lengths[seat]
    if length == 1:
        return 0
    for rank in range(RANKS):
        unseen[rank] = cfg[PER_RANK] - seen[rank]
    for k in range(length):
        unseen[RANK_OF[hands[seat, k]]] -= 1
    pool = cfg[DECK_SIZE] - seen_total - length
    next_seat = seat + 1 if seat + 1 < cfg[PLAYERS] else 0
    opp_hand = lengths[next_seat]
    best = 0
    best_value = -1e9
    for k in range(length):
        worth = expert_value(cfg, table, holds, card_weight, hands[seat, k], top_rank, pile_len,
                             float(pile_points), unseen, pool, opp_hand, left, -1)
        if worth > best_value:
            best, best_value = k, worth
    return best


@compiled
def rollouts(cfg: NDArray[np.int64], table: NDArray[np.int64], side_of: NDArray[np.int64],
             holds: NDArray[np.float64], card_weight: float, hands0: NDArray[np.int8],
             lengths0: NDArray[np.int64], future: NDArray[np.int8], centre0: NDArray[np.int8],
             centre_len0: NDArray[np.int64], numbers0: NDArray[np.int64], points0: NDArray[np.int64],
             counts0: NDArray[np.int64], seen0: NDArray[np.int64], candidates: NDArray[np.int64],
             finals: NDArray[np.float64], over: NDArray[np.bool_], to_end: bool) -> None:
    """The master's rollouts (``RoundSim`` and ``master._rollout``), for every world and
    candidate: play the candidate, then the expert's policy at every seat to the horizon (the
    round's end when ``to_end``).

    World ``w`` is ``hands0[w]`` (``lengths0`` cards a seat), its future batches
    ``future[w]``, its centre ``centre0[w, :centre_len0[w]]``, and ``numbers0[w]``: the
    centre's points, the seat to play, cards left, the last capturer, the kseri chain, the
    cards seen; ``points0``, ``counts0`` and ``seen0`` per side and per rank. ``finals[w, c]``
    receives each side's points at the horizon, ``over[w]`` whether that is the round's end.
    """
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    per_batch = players * cfg[BATCH_SIZE]
    jacks_wild = cfg[JACKS_WILD] == 1
    size = hands0.shape[2]
    hands = np.zeros((players, max(size, cfg[BATCH_SIZE])), np.int64)
    lengths = np.zeros(players, np.int64)
    pile = np.zeros(cfg[DECK_SIZE], np.int64)
    points = np.zeros(sides, np.int64)
    counts = np.zeros(sides, np.int64)
    seen = np.zeros(RANKS, np.int64)
    unseen = np.zeros(RANKS, np.int64)
    for world in range(hands0.shape[0]):
        for choice in range(candidates.shape[0]):
            for seat in range(players):
                lengths[seat] = lengths0[world, seat]
                for k in range(lengths[seat]):
                    hands[seat, k] = hands0[world, seat, k]
            pile_len = centre_len0[world]
            for k in range(pile_len):
                pile[k] = centre0[world, k]
            pile_points = numbers0[world, 0]
            seat = numbers0[world, 1]
            left = numbers0[world, 2]
            last_capturer = numbers0[world, 3]
            chain = numbers0[world, 4]
            seen_total = numbers0[world, 5]
            batch = 0
            for side in range(sides):
                points[side] = points0[world, side]
                counts[side] = counts0[world, side]
            for rank in range(RANKS):
                seen[rank] = seen0[world, rank]
            card = candidates[choice]
            position = 0
            for k in range(lengths[seat]):
                if hands[seat, k] == card:
                    position = k
                    break
            first = True
            horizon = -1
            while first or left > horizon:
                if not first:
                    top_rank = RANK_OF[pile[pile_len - 1]] if pile_len else -1
                    position = sim_choice(cfg, table, holds, card_weight, hands, lengths, seat, top_rank,
                                          pile_len, pile_points, seen, seen_total, left, unseen)
                card = hands[seat, position]
                for k in range(position, lengths[seat] - 1):
                    hands[seat, k] = hands[seat, k + 1]
                lengths[seat] -= 1
                # RoundSim.apply
                rank = RANK_OF[card]
                seen[rank] += 1
                seen_total += 1
                left -= 1
                player = seat
                seat = seat + 1 if seat + 1 < players else 0
                if pile_len == 0:
                    pile[0] = card
                    pile_len = 1
                    pile_points += table[card]
                    chain = 2 if chain == 1 else 0
                elif rank != RANK_OF[pile[pile_len - 1]] and not (rank == JACK and jacks_wild):
                    pile[pile_len] = card
                    pile_len += 1
                    pile_points += table[card]
                    chain = 0
                else:
                    top = pile[pile_len - 1]
                    bonus = 0
                    kseri = False
                    if pile_len == 1 and rank == RANK_OF[top]:
                        value = cfg[KSERI]
                        if rank == JACK:
                            value = cfg[JACK_KSERI]
                        elif chain == 2 and cfg[DOUBLE_KSERI] >= 0:
                            value = cfg[DOUBLE_KSERI]
                        if value >= 0 and (left > 0 or cfg[LAST_OK] == 1):
                            bonus = value
                            kseri = True
                    if cfg[JACKS_TABLE] > 0:
                        plain = 0
                        for k in range(pile_len):
                            if RANK_OF[pile[k]] != JACK:
                                plain += 1
                        if plain == 0:
                            bonus += cfg[JACKS_TABLE]
                    if cfg[TWO_CLUBS_BONUS] > 0 and rank == 0 and top % 52 == TWO_CLUBS:
                        bonus += cfg[TWO_CLUBS_BONUS]
                    side = side_of[player]
                    points[side] += pile_points + table[card] + bonus
                    counts[side] += pile_len + 1
                    pile_len = 0
                    pile_points = 0
                    last_capturer = player
                    chain = 1 if kseri else 0
                # RoundSim.play: the next batch
                if left % per_batch == 0 and left > 0 and batch < future.shape[1]:
                    for s in range(players):
                        lengths[s] = cfg[BATCH_SIZE]
                        for k in range(cfg[BATCH_SIZE]):
                            hands[s, k] = future[world, batch, s, k]
                    batch += 1
                if first:
                    first = False
                    horizon = left - left % per_batch
                    if left - horizon <= players:
                        horizon = max(0, horizon - per_batch)
                    if to_end:
                        horizon = 0
            if left == 0:
                if last_capturer >= 0:
                    side = side_of[last_capturer]
                    points[side] += pile_points + cfg[LAST_BONUS]
                    counts[side] += pile_len
                most = 0
                for side in range(sides):
                    most = max(most, counts[side])
                if cfg[MAJORITY] > 0 and most > 0:
                    leaders = 0
                    for side in range(sides):
                        if counts[side] == most:
                            leaders += 1
                    if leaders == 1 or cfg[EVERY_TIED] == 1:
                        for side in range(sides):
                            if counts[side] == most:
                                points[side] += cfg[MAJORITY]
                for side in range(sides):
                    finals[world, choice, side] = float(points[side])
                over[world] = True
            else:
                for side in range(sides):
                    finals[world, choice, side] = points[side] + card_weight * counts[side]
                over[world] = False

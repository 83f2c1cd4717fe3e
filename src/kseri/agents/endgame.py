"""Exact play once every card is known and the stock is empty: alpha-beta with a
transposition table.

Cards that differ only in suit and score alike (3♠ and 3♥ in the Greek game) are merged into
one class, so a hand is a count per class and equivalent plays are searched once. The value of
a position is the viewer's side's final round points less the mean of the other sides'; with
more than two sides the others are assumed to play against the viewer (paranoid search).

The start position is a round in progress with every card known, as a record of the compiled
core's state (:data:`kseri.fast.flat.STATE`): the master's sampled worlds
(:meth:`kseri.agents.sampler.Sampler.states`) are loaded into such records.

>>> import random
>>> from kseri import Match
>>> from kseri.agents.sampler import Sampler
>>> match, rng = Match(seed=4), random.Random(4)
>>> while len(match.plays[-1]) < 42:
...     match.play(rng.choice(match.legal_plays()))
>>> sampler = Sampler(match.view(match.turn))
>>> state = sampler.states(sampler.pools(rng, 1))[0]
>>> values = solve(match.rules, state, side=match.rules.side_of(match.turn))
>>> sorted(values) == sorted(set(match.legal_plays()) & set(values))
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

import numpy as np

from kseri.cards import CLUBS, JACK, RANK_OF, TWO
from kseri.rules import MajorityTie, Rules

_INF = float("inf")
TWO_CLUBS: Final = TWO * 4 + CLUBS

# Why the endgame does not play through the compiled step (``kseri.fast.kernels.play_card``):
# the solver's search is over classes of equivalent cards (a hand is a count per class), with
# each position keyed for the transposition table and every move undone on the way back. The
# compiled step plays concrete cards on a whole state record: searching with it would copy a
# record (about 5 kB) per node or need an undo the step does not have, and a compiled
# transposition table besides (a numba typed dict), for a solve that runs on at most
# ``master.SOLVE_CARDS`` cards and ``master.SOLVED_WORLDS`` worlds a move (tens of ms, in
# ``benchmarks/bots.py``). The rule it applies here (capture, kseri, double kseri, the
# bonuses, the sweep) is checked by ``tests/agents/test_bots.py``'s brute-force minimax through
# the compiled step (itself checked against the engine); its start position is a state record.


def play_class(card: int, table: Sequence[int]) -> tuple[int, int, bool]:
    """What a card's play depends on: its rank, its points and whether it is the 2♣ (cards
    alike in all three, such as 3♠ and 3♥ in the Greek game, are interchangeable)."""
    return (RANK_OF[card], table[card], card % 52 == TWO_CLUBS)


def relative(points: Sequence[float], side: int) -> float:
    """``side``'s points less the mean of the other sides' (the bench's measure)."""
    others = len(points) - 1
    return points[side] - (sum(points) - points[side]) / others


class _Classes(NamedTuple):
    """The classes of equivalent cards in play (:func:`play_class`), numbered from 0."""

    of: dict[int, int]
    """Each card's class."""
    rank: list[int]
    points: list[int]
    two_clubs: list[bool]


def _card_classes(rules: Rules, hands: Sequence[Sequence[int]]) -> _Classes:
    """The classes of the cards in ``hands``, numbered in the order the cards come."""
    keys: dict[tuple[int, int, bool], int] = {}
    table = rules.points_table
    of = {card: keys.setdefault(play_class(card, table), len(keys)) for hand in hands for card in hand}
    return _Classes(of, [key[0] for key in keys], [key[1] for key in keys], [key[2] for key in keys])


_Terminal = Callable[[tuple[int, ...], int, int, int], float]
"""The value of a round's end: (cards per side, last capturer's side, pile's cards and points)."""
_Moves = Callable[[int, int, bool, int, int, bool, int, int], list[tuple[float, int, int]]]
"""The moves of a seat: (seat, top's rank, top is 2♣, pile's cards and points, all Jacks, chain,
cards left) to (immediate gain for the side to play, class, kind) per distinct class; kind 1
captures, 2 with a kseri."""
_Search = Callable[[int, int, bool, int, int, bool, tuple[int, ...], int, int, int, float, float], float]
"""The alpha-beta search: a position (as :data:`Moves` and the cards per side, the last
capturer's side, the chain, the cards left) and the window, to its value."""

# The search's parts are closures made by the three functions below: the position's constants
# live in closure cells, the quickest lookup in CPython, on a path taken once per node.


def _terminal_of(rules: Rules, weight: Sequence[float]) -> _Terminal:
    """The value at a round's end under ``rules``, each side's points weighed by ``weight``."""
    majority = rules.majority_bonus
    tie_rewarded = rules.majority_tie is MajorityTie.EVERY_TIED_SIDE
    last_bonus = rules.last_capture_bonus

    def terminal(counts: tuple[int, ...], last_side: int, pile_len: int, pile_pts: int) -> float:
        value = 0.0
        if last_side >= 0:
            value += weight[last_side] * (pile_pts + last_bonus)
            if pile_len:
                counts = tuple(c + pile_len if s == last_side else c for s, c in enumerate(counts))
        if majority:
            most = max(counts)
            if most:
                leaders = [s for s, c in enumerate(counts) if c == most]
                if len(leaders) == 1 or tie_rewarded:
                    for s in leaders:
                        value += weight[s] * majority
        return value

    return terminal


def _moves_of(rules: Rules, hands: list[list[int]], classes: _Classes) -> _Moves:
    """The moves of a seat from ``hands`` (each a sorted list of classes, as the search leaves
    them), best first for the side to play."""
    cls_rank, cls_points = classes.rank, classes.points
    jacks_wild = rules.jacks_capture_all
    jack_kseri = rules.jack_kseri
    kseri_value = rules.kseri_value
    double = rules.double_kseri
    last_ok = rules.kseri_on_last_card
    jacks_bonus = rules.jacks_table_bonus
    two_clubs_bonus = rules.two_clubs_match_bonus

    def moves(turn: int, top_rank: int, top_2c: bool, pile_len: int, pile_pts: int, all_jacks: bool,
              chain: int, left: int) -> list[tuple[float, int, int]]:
        result = []
        previous = -1
        for c in hands[turn]:
            if c == previous:
                continue
            previous = c
            rank = cls_rank[c]
            if pile_len and (rank == top_rank or (rank == JACK and jacks_wild)):
                gain = pile_pts + cls_points[c]
                if pile_len == 1 and rank == top_rank and (left > 1 or last_ok):
                    if rank == JACK:
                        bonus = jack_kseri
                    elif chain == 2 and double is not None:
                        bonus = double
                    else:
                        bonus = kseri_value
                    if bonus is not None:
                        gain += bonus
                        result.append((gain + 1000.0, c, 2))
                        continue
                if jacks_bonus and all_jacks:
                    gain += jacks_bonus
                if two_clubs_bonus and rank == TWO and top_2c:
                    gain += two_clubs_bonus
                result.append((gain + 500.0, c, 1))
            else:
                result.append((-cls_points[c], c, 0))
        result.sort(reverse=True)
        return result

    return moves


def _search_of(rules: Rules, side: int, weight: Sequence[float], hands: list[list[int]], hkeys: list[int],
               classes: _Classes, moves: _Moves) -> _Search:
    """The alpha-beta search for ``side`` with a transposition table, over ``hands`` and their
    keys ``hkeys`` (a count per class in 4 bits each), which it changes and restores."""
    players = rules.players
    side_of = [rules.side_of(seat) for seat in range(players)]
    cls_rank, cls_points, cls_2c = classes.rank, classes.points, classes.two_clubs
    terminal = _terminal_of(rules, weight)
    tt: dict[tuple[object, ...], tuple[float, float]] = {}

    def search(turn: int, top_rank: int, top_2c: bool, pile_len: int, pile_pts: int, all_jacks: bool,
               counts: tuple[int, ...], last_side: int, chain: int, left: int,
               alpha: float, beta: float) -> float:
        if left == 0:
            return terminal(counts, last_side, pile_len, pile_pts)
        key = (*hkeys, turn, top_rank, top_2c, pile_len, pile_pts, all_jacks, counts, last_side, chain)
        entry = tt.get(key)
        if entry is not None:
            low, high = entry
            if low >= beta:
                return low
            if high <= alpha:
                return high
            if low == high:
                return low
            alpha = max(alpha, low)
            beta = min(beta, high)
        original_alpha, original_beta = alpha, beta
        seat_side = side_of[turn]
        maximising = seat_side == side
        w = weight[seat_side]
        hand = hands[turn]
        best = -_INF if maximising else _INF
        next_turn = (turn + 1) % players
        for order, c, kind in moves(turn, top_rank, top_2c, pile_len, pile_pts, all_jacks, chain, left):
            hand.remove(c)
            hkeys[turn] -= 1 << (4 * c)
            rank = cls_rank[c]
            if kind:
                gain = order - (1000.0 if kind == 2 else 500.0)
                delta = w * gain
                new_counts = tuple(n + pile_len + 1 if s == seat_side else n for s, n in enumerate(counts))
                value = delta + search(next_turn, -1, False, 0, 0, False, new_counts, seat_side,
                                       1 if kind == 2 else 0, left - 1, alpha - delta, beta - delta)
            else:
                value = search(next_turn, rank, cls_2c[c], pile_len + 1, pile_pts + cls_points[c],
                               (all_jacks or not pile_len) and rank == JACK, counts, last_side,
                               (2 if chain == 1 else 0) if not pile_len else 0, left - 1, alpha, beta)
            hkeys[turn] += 1 << (4 * c)
            hand.append(c)
            hand.sort()
            if maximising:
                if value > best:
                    best = value
                    if value > alpha:
                        alpha = value
            elif value < best:
                best = value
                if value < beta:
                    beta = value
            if alpha >= beta:
                break
        if best <= original_alpha:
            tt[key] = (-_INF, best)
        elif best >= original_beta:
            tt[key] = (best, _INF)
        else:
            tt[key] = (best, best)
        return best

    return search


def solve(rules: Rules, state: np.void, side: int) -> dict[int, float]:
    """The exact value for ``side`` of each distinct play of the seat to play in ``state`` (a
    :data:`~kseri.fast.flat.STATE` record under ``rules``).

    Each class of equivalent cards is represented by one card of the hand. ``state`` must have
    no batch left to deal; it is not changed.
    """
    from kseri.fast.flat import COUNTS, POINTS
    players = rules.players
    lengths = state["lengths"][:players].tolist()
    hands_dealt: list[list[int]] = [state["hands"][seat, :size].tolist() for seat, size in enumerate(lengths)]
    if sum(lengths) != rules.deck_size - rules.centre_size - int(state["index"]):
        raise ValueError("the endgame solver needs an empty stock")
    sides = rules.sides
    weight = [1.0 if s == side else -1.0 / (sides - 1) for s in range(sides)]
    classes = _card_classes(rules, hands_dealt)
    hands = [sorted(classes.of[c] for c in hand) for hand in hands_dealt]
    hkeys = [sum(1 << (4 * c) for c in hand) for hand in hands]
    moves = _moves_of(rules, hands, classes)
    search = _search_of(rules, side, weight, hands, hkeys, classes, moves)

    centre: list[int] = state["pile"][: int(state["pile_len"])].tolist()
    centre_points = int(state["pile_points"])
    chain = int(state["chain"])
    last_capturer = int(state["last_capturer"])
    top_rank = RANK_OF[centre[-1]] if centre else -1
    top_2c = bool(centre) and centre[-1] % 52 == TWO_CLUBS
    all_jacks = bool(centre) and all(RANK_OF[c] == JACK for c in centre)
    counts = tuple(state["per_side"][COUNTS, :sides].tolist())
    last_side = rules.side_of(last_capturer) if last_capturer >= 0 else -1
    left = sum(len(hand) for hand in hands)
    now = sum(weight[s] * p for s, p in enumerate(state["per_side"][POINTS, :sides].tolist()))
    turn = int(state["turn"])
    seat_side = rules.side_of(turn)
    w = weight[seat_side]
    values: dict[int, float] = {}
    representative = {classes.of[c]: c for c in reversed(hands_dealt[turn])}
    for order, c, kind in moves(turn, top_rank, top_2c, len(centre), centre_points, all_jacks, chain, left):
        hand = hands[turn]
        hand.remove(c)
        hkeys[turn] -= 1 << (4 * c)
        rank = classes.rank[c]
        if kind:
            delta = w * (order - (1000.0 if kind == 2 else 500.0))
            new_counts = tuple(n + len(centre) + 1 if s == seat_side else n for s, n in enumerate(counts))
            value = delta + search((turn + 1) % players, -1, False, 0, 0, False, new_counts, seat_side,
                                   1 if kind == 2 else 0, left - 1, -_INF, _INF)
        else:
            value = search((turn + 1) % players, rank, classes.two_clubs[c], len(centre) + 1,
                           centre_points + classes.points[c], (all_jacks or not centre) and rank == JACK,
                           counts, last_side, (2 if chain == 1 else 0) if not centre else 0,
                           left - 1, -_INF, _INF)
        hkeys[turn] += 1 << (4 * c)
        hand.append(c)
        hand.sort()
        values[representative[c]] = now + value
    return values

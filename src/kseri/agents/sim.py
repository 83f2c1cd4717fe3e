"""A lean round state for search: the engine's rules of play without its bookkeeping.

:class:`RoundSim` plays a round from a fully known world (every hand, the stock's batches, the
centre) as fast as Python allows: no views, no undo records, no score breakdowns. Bots build it
only from worlds sampled out of a :class:`~kseri.engine.View`; a differential test checks that
it scores every round exactly as :class:`~kseri.engine.Match` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from kseri.cards import CLUBS, JACK, RANK_OF, TWO
from kseri.rules import MajorityTie, Rules

TWO_CLUBS: Final = TWO * 4 + CLUBS


class SimRules:
    """The constants of :class:`Rules` that play and scoring need, as plain attributes, each under
    its name in :class:`Rules` (``side_of`` a tuple; ``per_rank``, ``per_batch`` and ``tie_rewarded``
    derived)."""

    __slots__ = (
        "deck_size", "double_kseri", "jack_kseri", "jacks_capture_all", "jacks_table_bonus",
        "kseri_on_last_card", "kseri_value", "last_capture_bonus", "majority_bonus", "per_batch", "per_rank",
        "players", "points_table", "side_of", "sides", "tie_rewarded", "two_clubs_match_bonus",
    )

    def __init__(self, rules: Rules) -> None:
        self.players = rules.players
        self.sides = rules.sides
        self.side_of = tuple(rules.side_of(seat) for seat in range(rules.players))
        self.deck_size = rules.deck_size
        self.per_rank = 4 * rules.decks
        self.per_batch = rules.players * rules.batch_size
        self.jacks_capture_all = rules.jacks_capture_all
        self.jack_kseri = rules.jack_kseri
        self.kseri_value = rules.kseri_value
        self.double_kseri = rules.double_kseri
        self.kseri_on_last_card = rules.kseri_on_last_card
        self.jacks_table_bonus = rules.jacks_table_bonus
        self.two_clubs_match_bonus = rules.two_clubs_match_bonus
        self.points_table = rules.points_table
        self.majority_bonus = rules.majority_bonus
        self.tie_rewarded = rules.majority_tie is MajorityTie.EVERY_TIED_SIDE
        self.last_capture_bonus = rules.last_capture_bonus

    def final_points(self, points: Sequence[int], counts: Sequence[int], last_capturer: int,
                     pile_len: int, pile_points: int) -> list[int]:
        """Each side's round points once the last card is played: the sweep, majority and
        last-capture bonus added to ``points`` (captured card points and marks so far)."""
        points = list(points)
        counts = list(counts)
        if last_capturer >= 0:
            side = self.side_of[last_capturer]
            points[side] += pile_points
            counts[side] += pile_len
            if self.last_capture_bonus:
                points[side] += self.last_capture_bonus
        if self.majority_bonus:
            most = max(counts)
            if most:
                leaders = [side for side, count in enumerate(counts) if count == most]
                if len(leaders) == 1 or self.tie_rewarded:
                    for side in leaders:
                        points[side] += self.majority_bonus
        return points


class RoundSim:
    """A round in progress with every card known: hands, future batches and the centre.

    ``points`` and ``counts`` are each side's card points plus marks, and cards captured, so
    far; :meth:`final_points` adds the end-of-round sweep and bonuses.
    """

    __slots__ = (
        "batch", "centre", "centre_points", "chain", "counts", "future", "hands",
        "last_capturer", "left", "points", "r", "seen", "seen_total", "turn",
    )

    r: SimRules
    hands: list[list[int]]
    future: Sequence[Sequence[Sequence[int]]]
    batch: int
    centre: list[int]
    centre_points: int
    turn: int
    left: int
    points: list[int]
    counts: list[int]
    last_capturer: int
    chain: int
    seen: list[int]
    """Cards of each rank everyone has seen (played or dealt face up): public memory."""
    seen_total: int

    def __init__(self, sim_rules: SimRules, *, hands: Sequence[Sequence[int]],
                 future: Sequence[Sequence[Sequence[int]]], centre: Sequence[int], turn: int,
                 left: int, points: Sequence[int] | None = None, counts: Sequence[int] | None = None,
                 last_capturer: int = -1, chain: int = 0, seen: Sequence[int] | None = None) -> None:
        self.r = sim_rules
        self.hands = [list(hand) for hand in hands]
        self.future = future
        self.batch = 0
        self.centre = list(centre)
        self.centre_points = sum(sim_rules.points_table[c] for c in centre)
        self.turn = turn
        self.left = left
        self.points = list(points) if points is not None else [0] * sim_rules.sides
        self.counts = list(counts) if counts is not None else [0] * sim_rules.sides
        self.last_capturer = last_capturer
        self.chain = chain
        self.seen = list(seen) if seen is not None else [0] * 13
        self.seen_total = sum(self.seen)

    def copy(self) -> RoundSim:
        """An independent copy."""
        other = RoundSim.__new__(RoundSim)
        other.r = self.r
        other.hands = [list(hand) for hand in self.hands]
        other.future = self.future
        other.batch = self.batch
        other.centre = list(self.centre)
        other.centre_points = self.centre_points
        other.turn = self.turn
        other.left = self.left
        other.points = list(self.points)
        other.counts = list(self.counts)
        other.last_capturer = self.last_capturer
        other.chain = self.chain
        other.seen = list(self.seen)
        other.seen_total = self.seen_total
        return other

    def play(self, card: int) -> None:
        """Play ``card`` (which must be in the hand of the seat to play)."""
        self.hands[self.turn].remove(card)
        self.apply(card)
        if self.left % self.r.per_batch == 0 and self.left and self.batch < len(self.future):
            self.hands = [list(hand) for hand in self.future[self.batch]]
            self.batch += 1

    def apply(self, card: int) -> None:
        """The effect of ``card`` played by the seat to play, hands and dealing aside."""
        r = self.r
        seat = self.turn
        centre = self.centre
        rank = RANK_OF[card]
        self.seen[rank] += 1
        self.seen_total += 1
        self.left -= 1
        self.turn = (seat + 1) % r.players
        if not centre:
            centre.append(card)
            self.centre_points += r.points_table[card]
            self.chain = 2 if self.chain == 1 else 0
            return
        top = centre[-1]
        top_rank = RANK_OF[top]
        if rank != top_rank and not (rank == JACK and r.jacks_capture_all):
            centre.append(card)
            self.centre_points += r.points_table[card]
            self.chain = 0
            return
        bonus = 0
        kseri = False
        if len(centre) == 1 and rank == top_rank:
            if rank == JACK:
                value = r.jack_kseri
            elif self.chain == 2 and r.double_kseri is not None:
                value = r.double_kseri
            else:
                value = r.kseri_value
            if value is not None and (self.left or r.kseri_on_last_card):
                bonus = value
                kseri = True
        if r.jacks_table_bonus and all(RANK_OF[c] == JACK for c in centre):
            bonus += r.jacks_table_bonus
        if r.two_clubs_match_bonus and rank == TWO and top % 52 == TWO_CLUBS:
            bonus += r.two_clubs_match_bonus
        side = r.side_of[seat]
        self.points[side] += self.centre_points + r.points_table[card] + bonus
        self.counts[side] += len(centre) + 1
        self.centre = []
        self.centre_points = 0
        self.last_capturer = seat
        self.chain = 1 if kseri else 0

    def final_points(self) -> list[int]:
        """Each side's round points; meaningful once the last card is played."""
        return self.r.final_points(self.points, self.counts, self.last_capturer,
                                   len(self.centre), self.centre_points)


def play_class(card: int, table: Sequence[int]) -> tuple[int, int, bool]:
    """What a card's play depends on: its rank, its points and whether it is the 2♣ (cards
    alike in all three, such as 3♠ and 3♥ in the Greek game, are interchangeable)."""
    return (RANK_OF[card], table[card], card % 52 == TWO_CLUBS)


def relative(points: Sequence[float], side: int) -> float:
    """``side``'s points less the mean of the other sides' (the bench's measure)."""
    others = len(points) - 1
    return points[side] - (sum(points) - points[side]) / others

"""The ``expert`` level: rules of thumb on exact card counting, well under a millisecond a move.

It remembers every card it has seen (the view's dealt centre, every play, its own hand, the
face-down cards it took, Pisti's shown card) and weighs each play in points:

- a capture is worth the pile's points, the kseri bonus, a share of the majority per card and
  the tempo of leaving the opponent to lead on an empty table; a Jack spent on a small pile
  loses the value of keeping it for a fat one;
- a card left on the pile risks what the next opponent takes with it: the chance they hold its
  rank (a kseri when the pile was empty) or a Jack, by the hypergeometric odds over the cards
  they may hold;
- point cards (10♦, 2♣, the majority race) are shed last.

>>> from kseri import Match
>>> match = Match(seed=5)
>>> ExpertAgent().choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import comb

from kseri.agents.base import AGENTS, centre_cards
from kseri.cards import ALL_CARDS, JACK, RANK_OF, Card
from kseri.engine import View
from kseri.rules import Rules

JACK_HOLD = 2.5
"""Points a Jack in hand is worth for later: spent on a pile worth less, it is kept."""
TEMPO = 0.8
"""Points of leaving the opponent to lead on an empty table (their lone card may be taken as a kseri)."""
SHED_COST = 0.25
"""Extra cost per point of a point card laid on the pile (kept for captures instead)."""


@lru_cache(maxsize=65536)
def holds_any(pool: int, hand: int, wanted: int) -> float:
    """The chance that ``hand`` cards drawn from ``pool`` include at least one of ``wanted``."""
    if wanted <= 0 or hand <= 0:
        return 0.0
    if pool <= 0 or wanted >= pool or hand > pool:
        return 1.0
    return 1.0 - comb(pool - wanted, hand) / comb(pool, hand)


class Tactics:
    """The expert's evaluation of each play (the compiled core's ``kernels.expert_value`` is its
    twin, for the master's rollouts and the opponent model)."""

    __slots__ = ("card_weight", "jack_kseri", "jacks_capture_all", "kseri_on_last_card", "kseri_value",
                 "points_table")

    def __init__(self, rules: Rules) -> None:
        self.points_table = rules.points_table
        self.jacks_capture_all = rules.jacks_capture_all
        self.jack_kseri = rules.jack_kseri or 0
        self.kseri_value = rules.kseri_value
        self.kseri_on_last_card = rules.kseri_on_last_card
        cards_per_side = rules.deck_size / rules.sides
        self.card_weight = rules.majority_bonus / cards_per_side

    def value(self, card: int, top_rank: int, pile_len: int, pile_points: float,
              unseen: Sequence[int], pool: int, opp_hand: int, left: int, forced_rank: int = -1,
              ) -> float:
        """Points ``card`` is worth now: a capture's gain, or a laid card's expected loss.

        ``unseen`` counts by rank the cards the next opponent may hold, ``pool`` how many cards
        those ``opp_hand`` cards come from; ``forced_rank`` is a rank they surely hold (-1: none).
        ``left`` counts the cards still to be played in the round, this one included.
        """
        rank = RANK_OF[card]
        points = self.points_table[card]
        is_jack = rank == JACK
        if pile_len and (rank == top_rank or (is_jack and self.jacks_capture_all)):
            gain = pile_points + points + self.card_weight * (pile_len + 1)
            if pile_len == 1 and rank == top_rank and (left > 1 or self.kseri_on_last_card):
                gain += self.jack_kseri if is_jack else self.kseri_value
            elif is_jack and left > opp_hand + 1:
                gain -= JACK_HOLD
            return gain + (TEMPO if opp_hand else 0.0)
        stake = pile_points + points + self.card_weight * (pile_len + 1)
        kseri = 0.0
        if pile_len == 0 and (left > 2 or self.kseri_on_last_card):
            kseri = self.jack_kseri if is_jack else self.kseri_value
        same = 1.0 if rank == forced_rank else holds_any(pool, opp_hand, unseen[rank])
        if is_jack or not self.jacks_capture_all:
            either = same
        else:
            jacks = unseen[JACK]
            either = 1.0 if forced_rank == JACK else holds_any(pool, opp_hand, unseen[rank] + jacks)
            either = max(either, same)
        loss = same * (stake + kseri) + (either - same) * stake + SHED_COST * points
        if is_jack and left > 1:
            loss += JACK_HOLD
        return -loss


class ExpertAgent:
    """Counts every card and plays by :class:`Tactics` (deterministic)."""

    name = "expert"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic
        self._tactics: dict[Rules, Tactics] = {}

    def ranked(self, view: View) -> list[tuple[Card, float]]:
        """Each legal play with its :class:`Tactics` value, best first."""
        rules = view.rules
        tactics = self._tactics.get(rules)
        if tactics is None:
            tactics = self._tactics[rules] = Tactics(rules)
        hand = view.hand
        known = set(hand) | set(view.face_down_seen)
        known.update(play.card for play in view.plays)
        known.update(card for card in view.centre_dealt if card is not None)
        next_seat = (view.seat + 1) % rules.players
        opp_hand = view.hand_sizes[next_seat]
        forced_rank = -1
        shown = view.shown
        if shown is not None and shown not in known:
            known.add(shown)
            if view.stock_size == 0 and next_seat == view.dealer:
                forced_rank = RANK_OF[shown]
                opp_hand -= 1
        unseen_cards = [c for c in ALL_CARDS[: rules.deck_size] if c not in known]
        unseen = [0] * 13
        for card in unseen_cards:
            unseen[RANK_OF[card]] += 1
        pile = centre_cards(view)
        table = rules.points_table
        hidden = sum(1 for card in pile if card is None)
        mean_hidden = sum(table[c] for c in unseen_cards) / len(unseen_cards) if unseen_cards else 0.0
        pile_points = sum(table[c] for c in pile if c is not None) + hidden * mean_hidden
        top_rank = RANK_OF[pile[-1]] if pile and pile[-1] is not None else -1
        left = view.stock_size + sum(view.hand_sizes)
        ranked = [
            (card, tactics.value(card, top_rank, len(pile), pile_points, unseen, len(unseen_cards),
                                 opp_hand, left, forced_rank))
            for card in view.legal_plays()
        ]
        ranked.sort(key=lambda pair: -pair[1])
        return ranked

    def choose(self, view: View) -> Card:
        """The play :class:`Tactics` values most."""
        return self.ranked(view)[0][0]


AGENTS["expert"] = ExpertAgent

__all__ = ["ExpertAgent", "Tactics", "holds_any"]

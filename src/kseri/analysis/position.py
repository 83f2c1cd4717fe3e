"""What a seat's view says about the position, in the game's terms: the centre pile, what each
card would capture, and what is still out. Reads the view only (never a hidden card).

>>> from kseri import Match
>>> match = Match(seed=5)
>>> facts = Position.of(match.view(match.turn))
>>> len(facts.centre) == match.view(match.turn).centre_size
True
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kseri.cards import ALL_CARDS, JACK, Card
from kseri.engine import View


@dataclass(frozen=True, slots=True)
class Play:
    """What one card of the hand does when played now."""

    card: Card
    captures: bool
    """Whether it takes the centre pile."""
    kseri: bool
    """Whether the capture is a kseri (a lone card taken by its rank and scored as one)."""
    jack_kseri: bool
    """Whether that kseri is a Jack on a lone Jack."""
    by_jack: bool
    """Whether it captures as a wild Jack (the top card's rank differs)."""
    worth: int
    """Points it takes: the pile's known card points, its own and a kseri's bonus (0 without a capture)."""
    cards: int
    """Cards it takes, itself included (0 without a capture)."""


@dataclass(frozen=True, slots=True)
class Position:
    """The public facts of a seat's position on its turn."""

    view: View
    centre: tuple[Card | None, ...]
    """The centre pile bottom to top, ``None`` for a face-down card the seat has not seen."""
    unseen: Counter[int]
    """Cards of each rank the seat has not seen (in other hands, the stock or face down)."""

    @classmethod
    def of(cls, view: View) -> Position:
        """The facts of ``view`` (the seat's view on its turn)."""
        centre: list[Card | None] = list(view.centre_dealt)
        if view.face_down_seen and any(card is None for card in centre):
            seen = iter(view.face_down_seen)
            centre = [next(seen, None) if card is None else card for card in centre]
        for play in view.plays:
            centre = [] if play.taken else [*centre, play.card]
        if len(centre) != view.centre_size:
            raise ValueError(f"the view's plays leave {len(centre)} cards in the centre, "
                             f"not its {view.centre_size}")
        known = set(view.hand) | set(view.face_down_seen) | {play.card for play in view.plays}
        known.update(card for card in view.centre_dealt if card is not None)
        if view.shown is not None:
            known.add(view.shown)
        unseen = Counter(card.rank for card in ALL_CARDS[: view.rules.deck_size] if card not in known)
        return cls(view, tuple(centre), unseen)

    @property
    def top_rank(self) -> int | None:
        """The rank of the centre's top card (``None``: the centre is empty)."""
        top = self.view.centre_top
        return None if top is None else top.rank

    @property
    def pile_points(self) -> int:
        """The known card points in the centre."""
        table = self.view.rules.points_table
        return sum(table[card] for card in self.centre if card is not None)

    @property
    def last_batch(self) -> bool:
        """Whether the stock is empty: the round ends with these hands."""
        return self.view.stock_size == 0

    def play(self, card: Card) -> Play:
        """What ``card`` does when played now."""
        rules = self.view.rules
        table = rules.points_table
        top = self.top_rank
        size = len(self.centre)
        by_rank = top is not None and card.rank == top
        by_jack = top is not None and not by_rank and card.rank == JACK and rules.jacks_capture_all
        if not (by_rank or by_jack):
            return Play(card, False, False, False, False, 0, 0)
        worth = self.pile_points + table[card]
        kseri = False
        if size == 1 and by_rank and (sum(self.view.hand_sizes) > 1 or rules.kseri_on_last_card):
            bonus = rules.jack_kseri if card.rank == JACK else rules.kseri_value
            if bonus is not None:
                kseri = True
                worth += bonus
        return Play(card, True, kseri, kseri and card.rank == JACK, by_jack, worth, size + 1)

    def unseen_of(self, card: Card) -> int:
        """Cards of ``card``'s rank the seat has not seen: how many could still answer it."""
        return self.unseen[card.rank]

    def side_cards(self) -> int:
        """Cards the seat's side has captured this round."""
        return self.view.captured_sizes[self.view.side]

    def majority_line(self) -> int:
        """Captured cards that make the majority certain (more than half the deck)."""
        return self.view.rules.deck_size // 2 + 1


__all__ = ["Play", "Position"]

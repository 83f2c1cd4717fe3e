"""A puzzle's themes, from what its best card does in the position (:class:`Position`):

- ``kseri`` / ``jack_kseri``: it takes a lone card by its rank for the kseri (a Jack on a Jack);
- ``jack_timing``: it spends a Jack on the pile, or keeps a Jack that could take it (a kseri aside);
- ``last_sweep``: the stock is empty and the seat chooses among its last two cards;
- ``majority``: its capture makes the majority of cards certain;
- ``counting``: it is a card whose rank is all seen, laid where another card could be answered;
- ``defence``: on an empty centre, it leaves the card fewest unseen cards can take for a kseri;
- ``shown_card``: it is of the rank of Pisti's shown card (whose holder the whole table knows).

>>> from kseri import Match
>>> match = Match(seed=5)
>>> view = match.view(match.turn)
>>> isinstance(themes(view, view.hand[0]), tuple)
True
"""

from __future__ import annotations

from enum import StrEnum

from kseri.analysis.position import Position
from kseri.cards import JACK, Card
from kseri.engine import View


class Theme(StrEnum):
    """What a puzzle teaches."""

    KSERI = "kseri"
    JACK_KSERI = "jack_kseri"
    JACK_TIMING = "jack_timing"
    LAST_SWEEP = "last_sweep"
    MAJORITY = "majority"
    COUNTING = "counting"
    DEFENCE = "defence"
    SHOWN_CARD = "shown_card"


def themes(view: View, best: Card) -> tuple[Theme, ...]:
    """The themes of playing ``best`` from ``view``, in :class:`Theme`'s order."""
    position = Position.of(view)
    play = position.play(best)
    others = [card for card in view.hand if card.rank != best.rank]
    found: set[Theme] = set()
    if play.jack_kseri:
        found.add(Theme.JACK_KSERI)
    elif play.kseri:
        found.add(Theme.KSERI)
    jacks = [card for card in others if card.rank == JACK and position.play(card).captures]
    if (play.by_jack and others) or (best.rank != JACK and jacks and not play.kseri):
        found.add(Theme.JACK_TIMING)
    if position.last_batch and len(view.hand) <= 2:
        found.add(Theme.LAST_SWEEP)
    line = position.majority_line()
    if view.rules.majority_bonus and position.side_cards() < line <= position.side_cards() + play.cards:
        found.add(Theme.MAJORITY)
    if not play.captures and others:
        fewest = min(position.unseen_of(card) for card in others)
        if position.unseen_of(best) < fewest:
            found.add(Theme.DEFENCE if not position.centre else Theme.COUNTING)
            if position.unseen_of(best) == 0 and not position.centre:
                found.add(Theme.COUNTING)
    if view.shown is not None and best.rank == view.shown.rank:
        found.add(Theme.SHOWN_CARD)
    return tuple(theme for theme in Theme if theme in found)


__all__ = ["Theme", "themes"]

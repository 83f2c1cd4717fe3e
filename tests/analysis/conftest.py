"""Hand-made positions for the analysis's tests: a two-player Greek round dealt by hand."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from kseri.cards import ALL_CARDS, Card
from kseri.engine import Deal, Match, View

Position = Callable[..., View]


def greek_view(hands: Sequence[str], centre: Sequence[str], plays: Sequence[str] = ()) -> View:
    """The view of the seat to play after ``plays``, in a two-player Greek round whose first
    batch gives seat 0 and seat 1 ``hands`` (six cards each, space separated) over ``centre``
    (the rest of the deck, in order, is the stock); seat 0 plays first."""
    first = [tuple(Card(c) for c in hand.split()) for hand in hands]
    laid = tuple(Card(c) for c in centre)
    used = {*first[0], *first[1], *laid}
    rest = [card for card in ALL_CARDS[:52] if card not in used]
    batches = [tuple(first)]
    while rest:
        batches.append((tuple(rest[:6]), tuple(rest[6:12])))
        rest = rest[12:]
    match = Match(deal=Deal(dealer=1, centre=laid, face_down=0, hands=tuple(batches)))
    for card in plays:
        match.play(Card(card))
    assert match.turn is not None
    return match.view(match.turn)


@pytest.fixture
def position() -> Position:
    """:func:`greek_view`, for the tests."""
    return greek_view

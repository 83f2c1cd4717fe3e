"""Card names: every common spelling parses, formatting is canonical, card sets do set algebra."""

from __future__ import annotations

import pytest

from kseri import Card, CardError, CardSet, format_cards, parse_cards
from kseri.cards import ALL_CARDS, CLUBS, DIAMONDS, JACK, SPADES, TEN, TWO


@pytest.mark.parametrize("text", ["10D", "TD", "td", "10♦", "10♢", " 10d ", "t♦"])
def test_every_spelling_of_the_ten_of_diamonds(text: str) -> None:
    assert Card(text) is ALL_CARDS[TEN * 4 + DIAMONDS]


@pytest.mark.parametrize("text", ["J♣", "jc", "JC", "j♧"])
def test_every_spelling_of_the_jack_of_clubs(text: str) -> None:
    card = Card(text)
    assert (card.rank, card.suit) == (JACK, CLUBS)


@pytest.mark.parametrize("text", ["", "D", "1D", "11H", "TX", "10", "ZZ", "♠2"])
def test_text_that_is_no_card_is_refused(text: str) -> None:
    with pytest.raises(CardError, match="is not a card"):
        Card(text)


def test_numbers_and_formats() -> None:
    assert Card(0) is Card("2C") and Card(51) is Card("AS") and Card(52).face is Card("2C")
    assert (Card("2S").rank, Card("2S").suit) == (TWO, SPADES)
    assert (str(Card("TD")), Card("TD").pretty(), repr(Card("TD"))) == ("TD", "10♦", "Card('TD')")
    assert (str(Card(52 + 33)), repr(Card(52 + 33)), Card(85).face) == ("TD", "Card(85)", Card("TD"))
    for bad in (-1, 104):
        with pytest.raises(CardError, match=f"no card has the number {bad}"):
            Card(bad)


def test_parse_and_format_lists() -> None:
    assert parse_cards("10♦, jc QH") == [Card("TD"), Card("JC"), Card("QH")]
    assert format_cards(parse_cards("td 2c"), pretty=True) == "10♦ 2♣"
    assert format_cards(parse_cards("td 2c")) == "TD 2C"
    assert parse_cards("") == []


def test_card_sets() -> None:
    hand = CardSet.parse("AS TD 2C")
    assert list(hand) == [Card("2C"), Card("TD"), Card("AS")] and len(hand) == 3
    assert Card("TD") in hand and Card("TH") not in hand and "TD" not in hand
    assert str(hand) == "2C TD AS" and repr(hand) == "CardSet.parse('2C TD AS')"
    deck = CardSet.deck(1)
    assert len(deck) == 52 and len(CardSet.deck(2)) == 104
    assert len(deck & ~hand) == 49 and deck - hand == deck & ~hand
    assert hand | CardSet.parse("KH") == CardSet.parse("2C TD KH AS")
    assert hand ^ CardSet.parse("2C KH") == CardSet.parse("TD KH AS")
    assert not CardSet() and CardSet.from_mask(hand.mask) == hand and hash(hand) == hash(CardSet(hand))

"""Cards, ranks, suits and card sets.

A card is a plain ``int`` underneath (python-chess style): ``rank * 4 + suit`` for the first
deck, plus 52 for the second deck of a two-deck (Faro) game. :class:`Card` is an ``int``
subclass with a readable name on top; the 104 possible cards are created once and shared.

>>> Card("10D") == Card("TD") == Card("td") == Card("10♦")
True
>>> Card("jc").pretty()
'J♣'
>>> str(Card("10♦"))
'TD'
>>> Card("TD")
Card('TD')
>>> Card("JC").rank == JACK
True
>>> CardSet.parse("AS TD 2C")
CardSet.parse('2C TD AS')
>>> len(CardSet.deck(1) & ~CardSet.parse("AS TD"))
50
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

RANK_NAMES: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
"""ASCII names of the ranks, indexed by rank (``T`` is the ten)."""
SUIT_NAMES: Final = ("C", "D", "H", "S")
"""ASCII names of the suits, indexed by suit: clubs, diamonds, hearts, spades."""
SUIT_SYMBOLS: Final = ("♣", "♦", "♥", "♠")
"""Pretty suit symbols, indexed by suit."""

TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

CARDS_PER_DECK: Final = 52

RANK_ALIASES = {name: index for index, name in enumerate(RANK_NAMES)} | {"10": TEN}
_SUIT_ALIASES = {name: index for index, name in enumerate(SUIT_NAMES)} | {
    symbol: index for index, symbol in enumerate(SUIT_SYMBOLS)
} | {"♧": CLUBS, "♢": DIAMONDS, "♡": HEARTS, "♤": SPADES}


class CardError(ValueError):
    """Raised for text that does not name a card."""


class Card(int):
    """One card: an ``int`` in ``0..103`` with a readable name.

    ``Card(x)`` accepts an int or any common spelling (``10D``, ``TD``, ``td``, ``10♦``,
    ``J♣``, ``jc``) and always returns the shared instance for that card (first deck for text).
    """

    __slots__ = ()

    def __new__(cls, value: int | str) -> Card:
        if isinstance(value, str):
            return ALL_CARDS[_parse_index(value)]
        if isinstance(value, int) and 0 <= value < len(ALL_CARDS):
            return ALL_CARDS[value]
        raise CardError(f"no card has the number {value!r} (expected 0..{len(ALL_CARDS) - 1})")

    @property
    def rank(self) -> int:
        """The rank, ``TWO`` (0) to ``ACE`` (12)."""
        return (self % CARDS_PER_DECK) >> 2

    @property
    def suit(self) -> int:
        """The suit, ``CLUBS`` (0) to ``SPADES`` (3)."""
        return self & 3

    @property
    def face(self) -> Card:
        """The same card in the first deck (two-deck copies share a face)."""
        return ALL_CARDS[self % CARDS_PER_DECK]

    def pretty(self) -> str:
        """The screen form with a suit symbol and ``10`` for the ten, e.g. ``10♦``."""
        rank = "10" if self.rank == TEN else RANK_NAMES[self.rank]
        return rank + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return RANK_NAMES[self.rank] + SUIT_NAMES[self.suit]

    def __repr__(self) -> str:
        if self >= CARDS_PER_DECK:
            return f"Card({int(self)})"
        return f"Card({str(self)!r})"


def _parse_index(text: str) -> int:
    cleaned = text.strip().upper()
    if len(cleaned) < 2:
        raise CardError(f"{text!r} is not a card: expected a rank and a suit, like TD or 10♦")
    rank = RANK_ALIASES.get(cleaned[:-1])
    suit = _SUIT_ALIASES.get(cleaned[-1])
    if rank is None or suit is None:
        raise CardError(
            f"{text!r} is not a card: ranks are 2-10, T, J, Q, K, A; suits are C D H S or ♣♦♥♠"
        )
    return rank * 4 + suit


ALL_CARDS: Final[tuple[Card, ...]] = tuple(int.__new__(Card, i) for i in range(2 * CARDS_PER_DECK))
"""Every card of two decks; ``ALL_CARDS[:52]`` is one deck."""

RANK_OF: Final[tuple[int, ...]] = tuple(card.rank for card in ALL_CARDS)
"""Rank of each card number, for hot loops that avoid attribute look-ups."""


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas.

    >>> parse_cards("10♦, jc QH")
    [Card('TD'), Card('JC'), Card('QH')]
    """
    return [Card(token) for token in text.replace(",", " ").split()]


def format_cards(cards: Iterable[int], pretty: bool = False) -> str:
    """Format cards separated by spaces, in ASCII or pretty form.

    >>> format_cards([Card("TD"), Card("2C")], pretty=True)
    '10♦ 2♣'
    """
    return " ".join(ALL_CARDS[c].pretty() if pretty else str(ALL_CARDS[c]) for c in cards)


class CardSet:
    """A set of cards as a bitmask (bit ``n`` is card ``n``), with set algebra.

    ``~`` complements within both decks' 104 cards; intersect with :meth:`deck` to stay
    within the cards in play.
    """

    __slots__ = ("mask",)

    _ALL: Final = (1 << (2 * CARDS_PER_DECK)) - 1

    def __init__(self, cards: Iterable[int] = ()) -> None:
        mask = 0
        for card in cards:
            mask |= 1 << card
        self.mask = mask

    @classmethod
    def from_mask(cls, mask: int) -> CardSet:
        """The set whose bits are ``mask``."""
        result = cls()
        result.mask = mask & cls._ALL
        return result

    @classmethod
    def deck(cls, decks: int = 1) -> CardSet:
        """Every card of ``decks`` decks (1 or 2)."""
        return cls.from_mask((1 << (CARDS_PER_DECK * decks)) - 1)

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Parse cards separated by spaces or commas."""
        return cls(parse_cards(text))

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and bool(self.mask >> card & 1)

    def __iter__(self) -> Iterator[Card]:
        mask = self.mask
        while mask:
            low = mask & -mask
            yield ALL_CARDS[low.bit_length() - 1]
            mask ^= low

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and self.mask == other.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask & other.mask)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask | other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask & ~other.mask)

    def __xor__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask ^ other.mask)

    def __invert__(self) -> CardSet:
        return CardSet.from_mask(~self.mask)

    def __str__(self) -> str:
        return format_cards(self)

    def __repr__(self) -> str:
        return f"CardSet.parse({format_cards(self)!r})"

"""A round as dealt (:class:`Deal`) and the SHA-512 seeded shuffle that deals it.

Shuffles come from SHA-512, so that anyone can check a deal from its seed in any language:
:func:`uniform_below` draws a number, :func:`shuffled` reads it as a Fisher-Yates shuffle, and
:meth:`Deal.shuffle` lays the first batch, the centre (with each preset's centre procedure) and
the stock. :class:`kseri.engine.Match` plays the deals; ``kseri.engine`` re-exports these names.

>>> from kseri import Deal, Rules
>>> deal = Deal.shuffle(Rules.preset("greek"), 0, "seed")
>>> deal == Deal.shuffle(Rules.preset("greek"), 0, "seed"), len(deal.centre), len(deal.hands)
(True, 4, 4)
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from functools import lru_cache
from hashlib import sha512
from typing import TYPE_CHECKING, Final

from kseri.cards import ALL_CARDS, CARDS_PER_DECK, JACK, RANK_OF, Card
from kseri.rules import CentreDeal, Rules

if TYPE_CHECKING:
    from collections.abc import Sequence


class IllegalPlayError(ValueError):
    """Raised for a play the rules do not allow; the match is left unchanged.

    Defined here because :meth:`Deal.check` raises it too; its public home is ``kseri.engine``
    (which re-exports it), and tracebacks and pickles name it there.
    """

    __module__ = "kseri.engine"


# -- the shuffle ----------------------------------------------------------------------------


def uniform_below(seed: str, draw: int, bound: int) -> tuple[int, int]:
    """A uniform whole number in ``0..bound-1`` from ``seed``, and the next draw number.

    Draw ``d`` reads the big-endian number made of ``SHA-512(f"{seed}/{d}/{b}")`` for blocks
    ``b = 0, 1, ...`` (as many as ``bound`` needs), keeps its top ``(bound - 1).bit_length()``
    bits and accepts it when it is below ``bound``; otherwise draw ``d + 1`` is tried.
    """
    bits = (bound - 1).bit_length()
    if bits <= 512:
        shift = 512 - bits
        while True:
            value = int.from_bytes(sha512(f"{seed}/{draw}/0".encode()).digest(), "big") >> shift
            draw += 1
            if value < bound:
                return value, draw
    blocks = -(-bits // 512)
    while True:
        digest = b"".join([sha512(f"{seed}/{draw}/{block}".encode()).digest() for block in range(blocks)])
        draw += 1
        value = int.from_bytes(digest, "big") >> (512 * blocks - bits)
        if value < bound:
            return value, draw


_RADICES: Final = tuple(tuple((i, i + 1) for i in range(n - 1, 0, -1)) for n in range(2 * CARDS_PER_DECK + 1))
_FACTORIALS: Final = tuple(math.factorial(n) for n in range(2 * CARDS_PER_DECK + 1))


def shuffled(cards: Sequence[Card], seed: str, draw: int) -> tuple[list[Card], int]:
    """``cards`` in a uniformly random order from ``seed``, and the next draw number.

    One number ``x`` below ``n!`` (:func:`uniform_below`) is read as a Fisher-Yates shuffle:
    for ``i`` from ``n - 1`` down to 1, ``j = x mod (i + 1)``, ``x = x div (i + 1)``, and the
    cards at ``i`` and ``j`` swap.
    """
    result = list(cards)
    x, draw = uniform_below(seed, draw, _FACTORIALS[len(result)])
    for i, radix in _RADICES[len(result)]:
        j = x % radix
        x //= radix
        result[i], result[j] = result[j], result[i]
    return result, draw


def must_relay_centre(centre: Sequence[int]) -> bool:
    """Whether a Greek centre as laid (bottom to top) goes back into the stock to be laid again:
    its top card is a Jack, or its top two cards share a rank."""
    top = RANK_OF[centre[-1]]
    return top == JACK or (len(centre) > 1 and top == RANK_OF[centre[-2]])


@dataclass(frozen=True, slots=True)
class Deal:
    """A round's cards as dealt: everything else in the round follows from the plays.

    ``hands[b][s]`` is what seat ``s`` receives in batch ``b``; ``centre`` runs bottom to top,
    its first ``face_down`` cards face down; ``shown`` is the stock's bottom card shown to
    everyone (Pisti), which the dealer receives last. ``seed`` is the deal seed it was
    shuffled from (``None`` for a deal made by hand); it takes no part in equality.
    """

    dealer: int
    centre: tuple[Card, ...]
    face_down: int
    hands: tuple[tuple[tuple[Card, ...], ...], ...]
    shown: Card | None = None
    seed: str | None = field(default=None, compare=False)

    @classmethod
    def shuffle(cls, rules: Rules, dealer: int, deal_seed: str) -> Deal:
        """Shuffle and deal with the centre procedure of ``rules``, reproducibly from ``deal_seed``.

        The deck (card numbers in order) is :func:`shuffled` with draws from ``deal_seed``. The
        first ``players * batch_size`` cards are the first batch; the centre is laid from the
        rest (a Greek redeal shuffles the undealt stock again with the next draw); what is left
        is the stock, dealt batch after batch. Within a batch each seat receives ``batch_size``
        consecutive cards, starting with the seat after the dealer.
        """
        cfg = _dealing(rules)
        if not 0 <= dealer < cfg.players:
            raise ValueError(f"the dealer must be seat 0 to {cfg.players - 1}, not {dealer}")
        deck, draw = shuffled(cfg.deck, deal_seed, 0)
        # The deck is laid out as: the first batch, the centre, the rest of the stock.
        first = cfg.per_batch
        count = cfg.centre_size
        top = first + count
        face_down = cfg.face_down
        if cfg.redeal:
            while must_relay_centre(deck[first:top]):
                deck[first:], draw = shuffled(deck[first:], deal_seed, draw)
        elif JACK in map(RANK_OF.__getitem__, deck[first + face_down:top]):
            centre, stock = deck[first:top], deck[top:]
            for position in range(face_down, count):
                while RANK_OF[centre[position]] == JACK:
                    stock.insert(len(stock) // 2, centre[position])
                    centre[position] = stock.pop(0)
            deck[first:] = centre + stock
        cards = tuple(deck)
        # Each seat's hands, cut out of the dealing order (the seat after the dealer first).
        hands = tuple(zip(*[iter(cfg.hand_cutters[dealer](cards))] * cfg.players, strict=True))
        return cls(dealer, cards[first:top], face_down, hands, cards[-1] if cfg.shown else None, deal_seed)

    def check(self, rules: Rules) -> None:
        """Raise :class:`IllegalPlayError`, saying why, unless this deal fits ``rules``: a valid
        dealer, every card of the deck exactly once, hands of ``batch_size`` in ``batches``
        batches, a centre of ``centre_size`` with a face-up top, and (Pisti only) the shown card
        the dealer's last."""
        players = rules.players
        if not 0 <= self.dealer < players:
            raise IllegalPlayError(f"the deal's dealer must be seat 0 to {players - 1}, not {self.dealer}")
        if len(self.hands) != rules.batches or any(len(batch) != players for batch in self.hands):
            raise IllegalPlayError(
                f"the deal must have {rules.batches} batches of {players} hands for these rules"
            )
        if any(len(hand) != rules.batch_size for batch in self.hands for hand in batch):
            raise IllegalPlayError(f"every hand of the deal must hold {rules.batch_size} cards")
        if len(self.centre) != rules.centre_size:
            raise IllegalPlayError(
                f"the deal's centre must hold {rules.centre_size} cards, not {len(self.centre)}"
            )
        if not 0 <= self.face_down < len(self.centre):
            raise IllegalPlayError("the deal's centre must have its top card face up")
        cards = [*self.centre, *(card for batch in self.hands for hand in batch for card in hand)]
        if not all(isinstance(card, Card) for card in cards):
            raise IllegalPlayError("the deal's cards must be Card objects, like Card('TD')")
        if sorted(cards) != list(ALL_CARDS[: rules.deck_size]):
            raise IllegalPlayError(
                f"the deal must hold every card of the {rules.deck_size}-card deck exactly once"
            )
        if rules.centre_deal is not CentreDeal.PISTI:
            if self.shown is not None:
                raise IllegalPlayError(f"no card is shown with the {rules.centre_deal} centre deal")
        elif self.shown != self.hands[-1][self.dealer][-1]:
            raise IllegalPlayError("the shown card must be the dealer's last card")


class _Dealing:
    """What dealing needs from its rules, worked out once per rule set (:func:`_dealing`)."""

    __slots__ = (
        "centre_size", "deck", "face_down", "hand_cutters", "per_batch", "players", "redeal", "shown",
    )

    def __init__(self, rules: Rules) -> None:
        self.players = rules.players
        self.per_batch = rules.players * rules.batch_size
        self.deck = ALL_CARDS[: rules.deck_size]
        self.centre_size = rules.centre_size
        self.redeal = rules.centre_deal is CentreDeal.REDEAL
        self.shown = rules.centre_deal is CentreDeal.PISTI
        """Whether the stock's bottom card is shown (Pisti)."""
        self.face_down = rules.centre_size - 1 if self.shown else 0
        size = rules.batch_size
        starts = [0] + [self.per_batch * batch + rules.centre_size for batch in range(1, rules.batches)]
        self.hand_cutters = tuple(
            operator.itemgetter(*[
                slice(start + offset, start + offset + size)
                for start in starts
                for offset in [(seat - dealer - 1) % rules.players * size for seat in range(rules.players)]
            ])
            for dealer in range(rules.players)
        )
        """Per dealer: takes every hand of a round, batch by batch and seat by seat, out of the
        dealt cards laid out as first batch, centre, rest of the stock."""


@lru_cache(maxsize=64)
def _dealing(rules: Rules) -> _Dealing:
    """The :class:`_Dealing` of ``rules``, shared by equal rule sets."""
    return _Dealing(rules)


__all__ = ["Deal", "IllegalPlayError", "must_relay_centre", "shuffled", "uniform_below"]

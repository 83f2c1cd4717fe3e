"""Scripted deals for tests: a round in which every play is known in advance.

``scripted_deal(rules, dealer, centre, plays)`` lays the centre as given and hands out the
cards so that playing the first card of the hand, turn after turn, makes exactly ``plays``.
``no_capture_order`` lists cards so that no card ever has the rank of the one before it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kseri import Card, Deal, Match, Rules, parse_cards
from kseri.cards import ALL_CARDS, JACK
from kseri.engine import RoundResult
from kseri.rules import CentreDeal


def cards(text: str) -> list[Card]:
    """Cards from text such as ``"TD 2C JS"``."""
    return parse_cards(text)


def scripted_deal(rules: Rules, dealer: int, centre: str, plays: Iterable[Card], face_down: int = 0) -> Deal:
    """A deal in which each seat's hand holds its plays in order (the centre bottom to top)."""
    order = list(plays)
    players, per_batch = rules.players, rules.players * rules.batch_size
    hands = []
    for start in range(0, len(order), per_batch):
        batch: list[list[Card]] = [[] for _ in range(players)]
        for step, card in enumerate(order[start : start + per_batch]):
            batch[(dealer + 1 + step) % players].append(card)
        hands.append(tuple(tuple(hand) for hand in batch))
    shown = hands[-1][dealer][-1] if rules.centre_deal is CentreDeal.PISTI else None
    deal = Deal(dealer, tuple(cards(centre)), face_down, tuple(hands), shown)
    deal.check(rules)
    return deal


def no_capture_order(excluded: Iterable[Card], *, jacks: bool = False) -> list[Card]:
    """The other cards of one deck, suit after suit and rank after rank (so no two neighbours
    share a rank), Jacks left out unless ``jacks``."""
    skip = set(excluded)
    by_suit = sorted(ALL_CARDS[:52], key=lambda card: (card.suit, card.rank))
    return [c for c in by_suit if c not in skip and (jacks or c.rank != JACK)]


def play_first_cards(match: Match, count: int | None = None) -> None:
    """Play the first card of the hand ``count`` times (default: to the end of the round)."""
    played = 0
    while match.turn is not None and (count is None or played < count):
        match.play(match.legal_plays()[0])
        played += 1


def points_for(result: RoundResult, side: int, of: Iterable[Card]) -> int:
    """Points a side scored for some cards: their card points and the marks made with them."""
    wanted = set(of)
    return sum(item.points for item in result.breakdown[side] if item.card in wanted)


def snapshot(match: Match) -> tuple[Any, ...]:
    """Everything observable about a match: every seat's view and the match's standing."""
    return (
        tuple(match.view(seat) for seat in range(match.rules.players)),
        match.turn, match.phase, match.totals, match.target, match.winner, match.round_results,
        match.centre_left, match.deals, match.plays, match.stock_size,
    )


def exact(match: Match, side: int) -> float:
    """The round's points of ``side`` less the other side's with both playing perfectly
    (plain minimax through the engine: every hidden card is known here)."""
    if match.is_round_over():
        points = match.round_results[-1].points
        return float(points[side] - points[1 - side])
    assert match.turn is not None
    values = []
    for card in match.legal_plays():
        after = match.copy()
        after.play(card)
        values.append(exact(after, side))
    return max(values) if match.rules.side_of(match.turn) == side else min(values)

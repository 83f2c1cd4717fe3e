"""Opponent styles for the bench: players unlike the expert that the master's model assumes.

They are no levels (:data:`~kseri.agents.base.AGENTS`) but styles
(:data:`~kseri.agents.base.STYLES`), built the same way with ``make_agent(name, seed=...)``;
the gauntlet (:mod:`kseri.bench.gauntlet`) plays a level against them.

- ``noisy-expert`` (``temperature=`` points, default 1): the expert drawing its play by a
  softmax over its own values (:class:`~kseri.agents.tempered.Tempered`): a player who knows
  what is good and slips.
- ``pisti-hunter``: plays for kseris (pişti). It takes every kseri it can, clears the table with
  any capture so that the next player must lay a lone card, keeps the ranks that could answer one
  (it lays a rank it holds twice, or the rank most seen) and keeps its Jacks for a lone Jack or a
  fat pile.
- ``defensive``: never leaves a kseri it can avoid. It captures whenever it can (the most points;
  a cleared table gives nothing away); otherwise it lays the card the next player is least likely
  to take: the rank with the fewest cards unseen, then the fewest points, Jacks last.

>>> from kseri import Match
>>> match = Match(seed=5)
>>> from kseri.agents import make_agent
>>> bot = make_agent("pisti-hunter")
>>> bot.choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

from collections import Counter

from kseri.agents.base import STYLES, Agent, capture_value, centre_cards
from kseri.agents.expert import ExpertAgent
from kseri.agents.tempered import Tempered, expert_values
from kseri.cards import ALL_CARDS, JACK, RANK_OF, Card
from kseri.engine import View

HUNTER_JACK_PILE = 4
"""The pisti-hunter spends a Jack on a pile that is no lone Jack only from this many cards."""


def takes(view: View, card: Card, pile: list[Card | None]) -> bool:
    """Whether ``card`` captures ``pile`` (its top's rank, or a Jack where Jacks take all)."""
    if not pile:
        return False
    top = pile[-1]
    assert top is not None, "the top of the centre is always face up"
    rank = RANK_OF[card]
    return rank == RANK_OF[top] or (rank == JACK and view.rules.jacks_capture_all)


def unseen_by_rank(view: View) -> list[int]:
    """For each rank, how many of its cards the seat has not seen (the others may hold them)."""
    known = set(view.hand) | set(view.face_down_seen)
    known.update(play.card for play in view.plays)
    known.update(card for card in view.centre_dealt if card is not None)
    if view.shown is not None:
        known.add(view.shown)
    counts = [0] * 13
    for card in ALL_CARDS[: view.rules.deck_size]:
        if card not in known:
            counts[RANK_OF[card]] += 1
    return counts


def noisy_expert(seed: int | None = None, *, temperature: float = 1.0) -> Agent:
    """The expert drawing by a softmax over its values at ``temperature`` points."""
    return Tempered("noisy-expert", expert_values(ExpertAgent()), temperature, seed)


class PistiHunterAgent:
    """Plays for kseris: takes them, clears the table for them, keeps the cards that answer them."""

    name = "pisti-hunter"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic

    def choose(self, view: View) -> Card:
        """A kseri if there is one, else a clearing capture, else the card least needed for one."""
        pile = centre_cards(view)
        hand = view.legal_plays()
        table = view.rules.points_table
        held = Counter(RANK_OF[card] for card in hand)
        captures = [card for card in hand if takes(view, card, pile)]
        top = pile[-1] if pile else None
        if len(pile) == 1 and top is not None:
            kseris = [card for card in captures if RANK_OF[card] == RANK_OF[top]]
            if kseris:
                return max(kseris, key=lambda card: capture_value(view, card, pile))
        plain = [card for card in captures if RANK_OF[card] != JACK]
        if not plain and len(pile) >= HUNTER_JACK_PILE:
            plain = captures
        if plain:
            # the capture that leaves the most different ranks in hand: a duplicate first
            return max(plain, key=lambda card: (capture_value(view, card, pile), held[RANK_OF[card]] > 1,
                                                RANK_OF[card] != JACK))
        unseen = unseen_by_rank(view)
        return max(hand, key=lambda card: (RANK_OF[card] != JACK, held[RANK_OF[card]] > 1,
                                           -unseen[RANK_OF[card]], -table[card]))


class DefensiveAgent:
    """Captures whenever it can; otherwise lays the card the next player is least likely to take."""

    name = "defensive"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic

    def choose(self, view: View) -> Card:
        """The richest capture, else the safest card to lay."""
        pile = centre_cards(view)
        hand = view.legal_plays()
        table = view.rules.points_table
        captures = [card for card in hand if takes(view, card, pile)]
        if captures:
            return max(captures, key=lambda card: (capture_value(view, card, pile), RANK_OF[card] != JACK,
                                                   -table[card]))
        unseen = unseen_by_rank(view)
        return min(hand, key=lambda card: (RANK_OF[card] == JACK, unseen[RANK_OF[card]], table[card]))


STYLES["noisy-expert"] = noisy_expert
STYLES["pisti-hunter"] = PistiHunterAgent
STYLES["defensive"] = DefensiveAgent

__all__ = ["DefensiveAgent", "PistiHunterAgent", "noisy_expert", "takes", "unseen_by_rank"]

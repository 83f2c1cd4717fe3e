"""The bot protocol (a view in, a card out), card memory from a view, and the baselines.

>>> from kseri import Match
>>> match = Match(seed=5)
>>> bot = make_agent("greedy")
>>> bot.choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from kseri.cards import JACK, RANK_OF, Card
from kseri.engine import View


@runtime_checkable
class Agent(Protocol):
    """A player: given what its seat may know, it picks a card to play."""

    name: str

    def choose(self, view: View) -> Card:
        """The card to play; ``view.turn == view.seat`` and the card is in ``view.hand``."""
        ...


def centre_cards(view: View) -> list[Card | None]:
    """The centre pile bottom to top as a perfect memory knows it (``None``: face down, unseen).

    Everything here was seen when it was laid; the rules let a player remember it, not look.
    """
    pile: list[Card | None] = list(view.centre_dealt)
    for play in view.plays:
        if play.taken:
            pile = []
        else:
            pile.append(play.card)
    return pile


def capture_value(view: View, card: Card, pile: list[Card | None] | None = None) -> int:
    """Points ``card`` would score at once if played now: the pile's point cards, the card
    itself and any kseri (0 when it does not capture). Face-down cards count as unknown (0)."""
    if pile is None:
        pile = centre_cards(view)
    if not pile:
        return 0
    rules = view.rules
    top = pile[-1]
    assert top is not None, "the top of the centre is always face up"
    rank = RANK_OF[card]
    if rank != RANK_OF[top] and not (rank == JACK and rules.jacks_capture_all):
        return 0
    table = rules.points_table
    points = table[card] + sum(table[c] for c in pile if c is not None)
    if len(pile) == 1 and rank == RANK_OF[top]:
        last = view.stock_size == 0 and sum(view.hand_sizes) == 1
        if not last or rules.kseri_on_last_card:
            bonus = rules.jack_kseri if rank == JACK else rules.kseri_value
            points += bonus or 0
    return points


class RandomAgent:
    """Plays a uniformly random legal card (reproducible with a seed)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View) -> Card:
        """A random card of the hand."""
        return self._rng.choice(view.legal_plays())


class GreedyAgent:
    """Takes the most points right now; otherwise sheds its least valuable card (Jacks last)."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic

    def choose(self, view: View) -> Card:
        """The play with the largest immediate score."""
        pile = centre_cards(view)
        table = view.rules.points_table

        def key(card: Card) -> tuple[int, int, int, int]:
            gain = capture_value(view, card, pile)
            captures = 1 if gain or (pile and _captures(view, card, pile)) else 0
            return (gain, captures, -int(RANK_OF[card] == JACK), -table[card])

        return max(view.legal_plays(), key=key)


def _captures(view: View, card: Card, pile: list[Card | None]) -> bool:
    top = pile[-1]
    assert top is not None
    rank = RANK_OF[card]
    return rank == RANK_OF[top] or (rank == JACK and view.rules.jacks_capture_all)


AgentFactory = Callable[..., Agent]
"""Builds an agent; takes ``seed`` and the level's own options as keywords."""


def learned_agent(seed: int | None = None, **options: Any) -> Agent:
    """The ``learned`` level, its numpy network imported only when one is built: the rest of
    this module stays standard-library only, as the browser's offline engine needs
    (:mod:`kseri.offline`)."""
    from kseri.agents.learned import LearnedAgent

    return LearnedAgent(seed=seed, **options)


AGENTS: dict[str, AgentFactory] = {"random": RandomAgent, "greedy": GreedyAgent, "learned": learned_agent}
"""The built-in levels by name, weakest first (the ladder, :mod:`kseri.agents.ladder`, orders them
once its rungs are in)."""

STYLES: dict[str, AgentFactory] = {}
"""Opponent styles for the bench (:mod:`kseri.agents.styles`): built by :func:`make_agent` like
the levels, but no level a player picks."""

STRENGTH_DIALS: dict[str, AgentFactory] = {}
"""The levels with a strength dial (:mod:`kseri.agents.strength`): each builds the level at a
``strength`` between 0 and 1."""


def make_agent(name: str, seed: int | None = None, *, strength: float | None = None, **options: Any) -> Agent:
    """The built-in level or style called ``name``, at ``strength`` (0 to 1) where the level has a
    dial; an unknown name is refused with the list of levels."""
    factory = AGENTS.get(name) or STYLES.get(name)
    if factory is None:
        styles = f"; the styles are: {', '.join(STYLES)}" if STYLES else ""
        raise ValueError(f"unknown bot level {name!r}; the levels are: {', '.join(AGENTS)}{styles}")
    if strength is None:
        return factory(seed=seed, **options)
    if name not in STRENGTH_DIALS:
        dials = ", ".join(STRENGTH_DIALS)
        raise ValueError(f"{name!r} has no strength dial; the levels with one are: {dials}")
    return STRENGTH_DIALS[name](seed=seed, strength=strength, **options)

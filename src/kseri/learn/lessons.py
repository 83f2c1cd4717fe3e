"""The lessons as data: each one a prepared deal (or questions) and its steps.

A lesson with a deal is played through :class:`kseri.engine.Match`: the learner holds seat 0,
the opponent seat 1. ``prelude`` plays are made first (each seat playing the first card of
its hand) to reach a late position; then each :class:`Play` step asks the learner for one
card, and the opponent answers with its ``replies``. The texts live in ``text/<lang>.json``
under ``<lesson>.title``, ``<lesson>.intro`` and, per step ``n`` (from 1), ``<lesson>.<n>.do``
(what to do; play steps only) and ``<lesson>.<n>.done`` (what happened).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class Play:
    """The learner plays ``card``; then the opponent plays ``replies`` in turn."""

    card: str
    replies: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Count:
    """The learner types a count of the round just ended: its captured ``cards`` or its ``points``."""

    ask: Literal["cards", "points"]


@dataclass(frozen=True, slots=True)
class Centre:
    """A Greek centre as the dealer lays it (bottom to top): does it stay, or is it laid again?"""

    cards: str


@dataclass(frozen=True, slots=True)
class Target:
    """A round ends: ``totals`` before it, ``scored`` in it, under ``target``. Who wins, or what next?"""

    totals: tuple[int, int]
    scored: tuple[int, int]
    target: int = 151


Step = Play | Count | Centre | Target


@dataclass(frozen=True, slots=True)
class Lesson:
    """One lesson: its rules, its prepared deal (if it plays) and its steps."""

    id: str
    steps: tuple[Step, ...]
    rules: str = "greek"
    dealer: int = 1
    centre: str = ""
    """The centre as dealt, bottom to top (empty: the lesson plays no cards)."""
    hands: dict[tuple[int, int], str] = field(default_factory=dict)
    """Cards fixed in the deal, by (batch, seat); the rest of the deck fills the other hands."""
    prelude: int = 0


# The last batch of a Greek round, shared by the last-sweep and counting lessons.
_LATE_HANDS = {(3, 0): "2S 3S 5H 6H JS 4H", (3, 1): "7C 8C 9C QD 9D KC"}

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "capture",
        centre="3C 8D KS 7H",
        hands={(0, 0): "7S 4C QH 5D 2H 8H", (0, 1): "9C 8S 6S AD 3D KD"},
        steps=(Play("7S", ("9C",)), Play("4C", ("8S",)), Play("8H", ("6S",))),
    ),
    Lesson(
        "jack",
        centre="2D 5C TD KH",
        hands={(0, 0): "JS 3H 9S JD AC 4D", (0, 1): "6D KC JC 4S 7D 8C"},
        steps=(Play("JS", ("6D",)), Play("3H", ("KC",)), Play("JD", ("JC",))),
    ),
    Lesson(
        "kseri",
        centre="4S 9H 2D 6C",
        hands={(0, 0): "6H TS JC 5H JD QS", (0, 1): "TD JH 5C KS 3C 8D"},
        steps=(Play("6H", ("TD",)), Play("TS", ("JH",)), Play("JC", ("5C",)), Play("5H", ("KS",))),
    ),
    Lesson(
        "sweep",
        centre="3C 8D KS 7H",
        hands=_LATE_HANDS,
        prelude=44,
        steps=(Play("JS", ("9D",)), Play("4H", ("KC",))),
    ),
    Lesson(
        "count",
        centre="3C 8D KS 7H",
        hands=_LATE_HANDS,
        prelude=46,
        steps=(Play("4H", ("KC",)), Count("cards"), Count("points")),
    ),
    Lesson(
        "relay",
        steps=(Centre("5S 9D KC KH"), Centre("JS 6D 6H 2S"), Centre("7D 3S QC JH"), Centre("2C 8H 4S TD")),
    ),
    Lesson(
        "match",
        steps=(
            Target((139, 128), (15, 12)),
            Target((120, 100), (14, 17)),
            Target((140, 138), (16, 18)),
            Target((240, 236), (15, 12), 251),
        ),
    ),
    Lesson(
        "classic",
        rules="classic",
        centre="3S 8D 6C 5H",
        hands={(0, 0): "JC 9H QS JD", (0, 1): "9C QD JH 4C"},
        steps=(Play("JC", ("9C",)), Play("9H", ("QD",)), Play("QS", ("JH",)), Play("JD", ("4C",))),
    ),
    Lesson(
        "pisti",
        rules="pisti",
        centre="2S 9S 4D 7H",
        hands={(0, 0): "7C TS JC 3H", (0, 1): "TD JH 5S 8C"},
        steps=(Play("7C", ("TD",)), Play("TS", ("JH",)), Play("JC", ("5S",))),
    ),
)
"""Every lesson, in the order they are taught."""

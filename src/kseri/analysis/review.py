"""The post-game review: the master judges every play of a finished game from the player's view.

Each play is judged from the view its seat had just before it (:meth:`kseri.engine.Match.view`,
never a hidden card): the master (:meth:`kseri.agents.master.MasterAgent.evaluate`) estimates
every legal card's expected round points relative to the opponents, and the play's *loss* is
how far it trails the best. A seat's *accuracy* is the mean, over its decisions that mattered
(the legal cards not all worth the same), of where the played card's value lies between the
worst card (0) and the best (1), as a percentage. A costly play also gets a verdict in the game's terms
(:mod:`kseri.analysis.verdicts`).

>>> from kseri import Match
>>> from kseri.records import record_from_match
>>> match = Match(seed=5)
>>> for _ in range(6):
...     match.play(match.legal_plays()[0])
>>> report = analyse_record(record_from_match(match), iterations=8)
>>> len(report.reviews), [player.plays for player in report.players]
(6, [3, 3])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kseri.agents.master import DEFAULT_ITERATIONS, MasterAgent, play_classes
from kseri.analysis.verdicts import Verdict, judge
from kseri.cards import Card
from kseri.engine import View
from kseri.records import match_from_record

ANALYSIS_ITERATIONS = DEFAULT_ITERATIONS
"""Worlds the master samples per reviewed play by default (the master's own budget)."""
EQUAL = 0.05
"""Cards within this many points of each other count as equally good."""


@dataclass(frozen=True, slots=True)
class PlayReview:
    """One play judged from its seat's view."""

    round: int
    """The round, from 0."""
    play: int
    """The play's index in its round, from 0."""
    seat: int
    card: Card
    """The card played."""
    values: tuple[tuple[Card, float], ...]
    """Each legal card with its expected round points relative to the opponents, best first."""
    loss: float
    """How many points the card played trails the best (0: a best play)."""
    verdict: Verdict | None = None
    """What the play did wrong in the game's terms (``None``: nothing costly)."""

    @property
    def best(self) -> Card:
        """The card the master rates highest."""
        return self.values[0][0]

    @property
    def forced(self) -> bool:
        """Whether every legal card was worth the same (nothing to decide)."""
        return self.values[0][1] - self.values[-1][1] <= EQUAL

    @property
    def score(self) -> float:
        """Where the card played lies between the worst card (0) and the best (1)."""
        spread = self.values[0][1] - self.values[-1][1]
        return 1.0 if spread <= EQUAL else 1.0 - self.loss / spread

    def to_json(self) -> dict[str, Any]:
        """The review as JSON."""
        return {"round": self.round, "play": self.play, "seat": self.seat, "card": str(self.card),
                "best": str(self.best), "loss": round(self.loss, 3),
                "values": [{"card": str(card), "value": round(value, 3)} for card, value in self.values],
                "verdict": None if self.verdict is None else self.verdict.to_json()}


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One seat's figures over the game."""

    seat: int
    name: str
    plays: int
    decisions: int
    """Plays where the legal cards were not all worth the same."""
    accuracy: float | None
    """Mean score of the decisions as a percentage (``None``: no decision to judge)."""
    total_loss: float

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON."""
        return {"seat": self.seat, "name": self.name, "plays": self.plays, "decisions": self.decisions,
                "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
                "total_loss": round(self.total_loss, 3)}


@dataclass(frozen=True, slots=True)
class Analysis:
    """A game's reviews, its players' figures and its biggest mistakes."""

    reviews: tuple[PlayReview, ...]
    players: tuple[PlayerSummary, ...]

    def mistakes(self, count: int = 5, *, least: float = 1.0) -> list[PlayReview]:
        """The ``count`` costliest plays losing at least ``least`` points, costliest first."""
        costly = [review for review in self.reviews if review.loss >= least]
        costly.sort(key=lambda review: (-review.loss, review.round, review.play))
        return costly[:count]

    def to_json(self) -> dict[str, Any]:
        """The analysis as JSON (``docs/analysis.md``)."""
        return {"format": "kseri-analysis/1",
                "players": [player.to_json() for player in self.players],
                "mistakes": [review.to_json() for review in self.mistakes()],
                "plays": [review.to_json() for review in self.reviews]}


def review_play(view: View, card: Card, master: MasterAgent, *, round: int = 0, play: int = 0) -> PlayReview:
    """Judge ``card`` played from ``view`` (the seat's view on its turn)."""
    if card not in view.legal_plays():
        raise ValueError(f"{card} is not a legal play of seat {view.seat} here")
    if len(play_classes(view.hand, view.rules.points_table)) == 1:
        values = [(other, 0.0) for other in view.hand]
    else:
        values = [(other, points) for other, points, _ in master.evaluate(view)]
        values.sort(key=lambda entry: -entry[1])
    played = next(value for other, value in values if other == card)
    return PlayReview(round, play, view.seat, card, tuple(values), values[0][1] - played,
                      judge(view, card, values))


def analyse_plays(plays: Iterable[tuple[View, Card, int, int]], names: list[str], *,
                  iterations: int = ANALYSIS_ITERATIONS, seed: int = 0,
                  progress: Callable[[], None] | None = None) -> Analysis:
    """Review each ``(view, card played, round, play index)``; the views are all it sees."""
    master = MasterAgent(seed=seed, iterations=iterations)
    reviews = []
    for view, card, round_index, index in plays:
        reviews.append(review_play(view, card, master, round=round_index, play=index))
        if progress is not None:
            progress()
    players = []
    for seat, name in enumerate(names):
        own = [review for review in reviews if review.seat == seat]
        decided = [review for review in own if not review.forced]
        accuracy = 100 * sum(r.score for r in decided) / len(decided) if decided else None
        players.append(PlayerSummary(seat, name, len(own), len(decided), accuracy,
                                     sum(review.loss for review in own)))
    return Analysis(tuple(reviews), tuple(players))


def record_plays(record: Mapping[str, Any]) -> list[tuple[View, Card, int, int]]:
    """Each play of ``record`` with the view its seat had just before it."""
    final = match_from_record(record)
    deals, plays = final.deals, final.plays
    replay = match_from_record({**record, "rounds": [{**record["rounds"][0], "plays": []}]})
    out = []
    for round_index, (deal, round_plays) in enumerate(zip(deals, plays, strict=True)):
        if round_index:
            replay.next_round(deal=deal)
        for index, play in enumerate(round_plays):
            out.append((replay.view(play.seat), play.card, round_index, index))
            replay.play(play.card, seat=play.seat)
    return out


def analyse_record(record: Mapping[str, Any], *, iterations: int = ANALYSIS_ITERATIONS, seed: int = 0,
                   progress: Callable[[], None] | None = None) -> Analysis:
    """Review every play of a game record (:mod:`kseri.records`) from its seat's view."""
    plays = record_plays(record)
    players = match_from_record(record).rules.players
    given = record.get("names")
    names = list(given) if isinstance(given, list) else [f"Player {seat + 1}" for seat in range(players)]
    return analyse_plays(plays, names, iterations=iterations, seed=seed, progress=progress)


__all__ = ["ANALYSIS_ITERATIONS", "Analysis", "PlayReview", "PlayerSummary", "analyse_plays",
           "analyse_record", "record_plays", "review_play"]

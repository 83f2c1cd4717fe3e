"""Simulations: matches between random bots, tallied and optionally recorded, on any executor.

Match ``game`` of a run deals from ``{seed}:{game}`` and seeds its bots from it, so a run's
tally and records are the same wherever its matches are played.

>>> from kseri import Rules
>>> from kseri.bench.executors import Executor
>>> tally = run_simulation(Rules.preset("pisti"), 3, "doc", Executor())
>>> tally.matches, sum(tally.wins)
(3, 3)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kseri.agents import make_agent
from kseri.bench.duplicate import play_match
from kseri.bench.executors import Executor
from kseri.engine import KSERI_KINDS, Match
from kseri.records import record_from_match
from kseri.rules import Rules


@dataclass
class Tally:
    """What a simulation counts."""

    sides: int
    matches: int = 0
    rounds: int = 0
    plays: int = 0
    kseris: int = 0
    wins: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.wins = self.wins or [0] * self.sides
        self.points = self.points or [0] * self.sides

    def add(self, match: Match) -> None:
        """Count a finished match."""
        self.matches += 1
        self.rounds += len(match.round_results)
        for plays in match.plays:
            self.plays += len(plays)
            self.kseris += sum(1 for play in plays for mark in play.marks if mark.kind in KSERI_KINDS)
        for result in match.round_results:
            for side, points in enumerate(result.points):
                self.points[side] += points
        assert match.winner is not None
        self.wins[match.winner] += 1

    def merge(self, other: Tally) -> None:
        """Count another tally's matches too."""
        self.matches += other.matches
        self.rounds += other.rounds
        self.plays += other.plays
        self.kseris += other.kseris
        self.wins = [mine + theirs for mine, theirs in zip(self.wins, other.wins, strict=True)]
        self.points = [mine + theirs for mine, theirs in zip(self.points, other.points, strict=True)]


def simulated_match(rules: Rules, seed: str, game: int) -> Match:
    """Match ``game`` of the run ``seed``, between random bots each seeing only its view."""
    match = Match(rules, seed=f"{seed}:{game}")
    agents = [
        make_agent("random", seed=random.Random(f"{seed}:{game}:{seat}").getrandbits(64))
        for seat in range(rules.players)
    ]
    return play_match(match, agents)


@dataclass(frozen=True, slots=True)
class _Games:
    """A piece of a run: matches ``start`` to ``stop``."""

    rules: Rules
    seed: str
    start: int
    stop: int
    records: bool


def _play_games(games: _Games) -> tuple[Tally, list[dict[str, Any]]]:
    tally = Tally(games.rules.sides)
    records = []
    for game in range(games.start, games.stop):
        match = simulated_match(games.rules, games.seed, game)
        tally.add(match)
        if games.records:
            records.append(record_from_match(match))
    return tally, records


def run_simulation(
    rules: Rules,
    games: int,
    seed: str,
    executor: Executor,
    record: Callable[[dict[str, Any]], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Tally:
    """Play ``games`` matches on the (entered) ``executor`` and tally them.

    ``record`` receives each match's record, in match order; ``progress`` the number of
    matches in each finished piece of work.
    """
    if games < 1:
        raise ValueError(f"a simulation needs at least one match, not {games}")
    size = max(1, min(25, math.ceil(games / (4 * executor.workers))))
    pieces = [_Games(rules, seed, start, min(games, start + size), record is not None)
              for start in range(0, games, size)]
    tally = Tally(rules.sides)
    waiting: dict[int, list[dict[str, Any]]] = {}
    written = 0
    for index, (part, records) in executor.map(_play_games, pieces):
        tally.merge(part)
        waiting[index] = records
        while written in waiting:
            for each in waiting.pop(written):
                if record is not None:
                    record(each)
            written += 1
        if progress is not None:
            progress(pieces[index].stop - pieces[index].start)
    return tally

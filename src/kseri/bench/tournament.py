"""Round-robin tournaments on duplicate deals, run in parallel and reproducible from a seed.

Every pair of players plays the same ``deals`` deals (:func:`~kseri.bench.duplicate.bench_deal`),
each once per rotation of the seats, and ``matches`` whole matches to the target, each match
seed once per rotation. Every game's agents and engine seeds derive from the tournament seed
and the game's place in the schedule, so the outcomes do not depend on how many worker
processes share the work.

A player that is an external engine and fails during a game (a malformed line, an illegal
card, no answer in time, its process exiting) forfeits: a duplicate deal it fails in has no
point difference and counts as lost for it in the ratings; a match it fails in is lost.

>>> from kseri import Rules
>>> config = TournamentConfig((builtin_player("greedy"), builtin_player("random")),
...                           Rules.preset("pisti"), deals=4, matches=1, seed=3)
>>> outcome = run_tournament(config, workers=1)
>>> len(outcome.deals), len(outcome.matches)
(4, 2)
"""

from __future__ import annotations

import hashlib
import math
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from kseri.agents.base import AGENTS, Agent, make_agent
from kseri.bench.duplicate import bench_deal, play_match, play_round, seating, side_difference
from kseri.bench.executors import Executor, local_executor
from kseri.engine import Match
from kseri.protocol.client import EngineAgent, EngineError, EngineProcess
from kseri.rules import Rules


@dataclass(frozen=True, slots=True)
class Player:
    """A tournament player: a built-in bot ``level`` or an external engine ``command``."""

    name: str
    level: str | None = None
    command: tuple[str, ...] = ()

    def describe(self) -> dict[str, Any]:
        """The player as JSON: its name and what plays for it."""
        if self.level is not None:
            return {"name": self.name, "level": self.level}
        return {"name": self.name, "command": shlex.join(self.command)}


def builtin_player(level: str) -> Player:
    """The built-in bot ``level`` as a player named after it."""
    if level not in AGENTS:
        raise ValueError(f"unknown bot level {level!r}; the levels are: {', '.join(AGENTS)}")
    return Player(level, level=level)


def engine_command(spec: str) -> tuple[str, tuple[str, ...]]:
    """An external engine's name and command from ``NAME=COMMAND LINE`` (the command split as a
    shell would)."""
    name, sep, command = spec.partition("=")
    name = name.strip()
    if not sep or not name or not command.strip():
        raise ValueError(f"an engine is given as NAME=COMMAND, e.g. 'mine=./my-engine --fast', not {spec!r}")
    try:
        words = tuple(shlex.split(command))
    except ValueError as error:
        raise ValueError(f"engine {name!r}: cannot split its command {command!r}: {error}") from None
    return name, words


def engine_player(spec: str) -> Player:
    """An external engine from ``NAME=COMMAND LINE`` (the command split as a shell would)."""
    name, words = engine_command(spec)
    return Player(name, command=words)


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """What to play: everything that determines the outcomes."""

    players: tuple[Player, ...]
    rules: Rules
    deals: int
    """Duplicate deals per pair."""
    matches: int
    """Match seeds per pair (each played once per rotation of the seats)."""
    seed: int
    time_ms: int = 1000
    """Thinking time per play sent to external engines."""
    grace_ms: int = 1000
    """How much longer than ``time_ms`` the host waits for an engine's play before it forfeits."""

    def __post_init__(self) -> None:
        names = [player.name for player in self.players]
        if len(names) < 2:
            raise ValueError("a tournament needs at least two players")
        if len(set(names)) != len(names):
            raise ValueError(f"player names must differ: {', '.join(names)}")
        if self.deals < 1 or self.matches < 0:
            raise ValueError(
                f"a tournament needs deals >= 1 and matches >= 0, not {self.deals} and {self.matches}"
            )
        if self.time_ms < 1 or self.grace_ms < 0:
            raise ValueError(f"time_ms must be positive and grace_ms not negative, not {self.time_ms} "
                             f"and {self.grace_ms}")

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Every pair of players, as indexes into :attr:`players`."""
        count = len(self.players)
        return [(i, j) for i in range(count) for j in range(i + 1, count)]


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """One duplicate deal of a pair: the first player's mean point difference per round."""

    pair: tuple[int, int]
    index: int
    difference: float | None
    """``None`` when the deal was forfeited."""
    forfeit: int | None = None
    """The player (an index into the players) that forfeited."""
    problem: str = ""


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """One match of a pair in one rotation: the first player's score (1 won, 0 lost)."""

    pair: tuple[int, int]
    index: int
    rotation: int
    score: float
    rounds: int
    forfeit: int | None = None
    problem: str = ""


@dataclass(slots=True)
class TournamentOutcome:
    """Every game's outcome, in schedule order."""

    config: TournamentConfig
    deals: list[DealOutcome] = field(default_factory=list)
    matches: list[MatchOutcome] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Task:
    kind: str
    """``deals`` or ``matches``."""
    pair: tuple[int, int]
    start: int
    stop: int


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the parts' text (stable across processes and runs)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


_ENGINES: dict[tuple[str, int], EngineProcess] = {}
"""This process's running external engines, one per player and seat, reused across games."""


def _agent(config: TournamentConfig, player: Player, seat: int, seed: int) -> Agent:
    if player.level is not None:
        return make_agent(player.level, seed=seed)
    key = (player.name, seat)
    if key not in _ENGINES:
        _ENGINES[key] = EngineProcess(player.name, player.command)
    return EngineAgent(_ENGINES[key], seed, time_ms=config.time_ms, grace_ms=config.grace_ms)


def close_engines() -> None:
    """Stop this process's external engines."""
    while _ENGINES:
        _ENGINES.popitem()[1].close()


def _seat_agents(
    config: TournamentConfig, pair: tuple[int, int], rotation: int, *game: object
) -> list[Agent]:
    return [
        _agent(config, config.players[pair[member]], seat, derive_seed(config.seed, *game, rotation, seat))
        for seat, member in enumerate(seating(config.rules, rotation))
    ]


def _forfeiter(config: TournamentConfig, pair: tuple[int, int], error: EngineError) -> int:
    return next(p for p in pair if config.players[p].name == error.engine)


def _play_deal(config: TournamentConfig, pair: tuple[int, int], index: int) -> DealOutcome:
    rules = config.rules
    deal = bench_deal(rules, config.seed, index)
    total = 0.0
    for rotation in range(rules.sides):
        agents = _seat_agents(config, pair, rotation, "deal", index, *pair)
        try:
            points = play_round(rules, deal, agents).points
        except EngineError as error:
            return DealOutcome(pair, index, None, _forfeiter(config, pair, error), f"deal {index}: {error}")
        total += side_difference(points, rotation)
    return DealOutcome(pair, index, total / rules.sides)


def _play_match(config: TournamentConfig, pair: tuple[int, int], index: int, rotation: int) -> MatchOutcome:
    rules = config.rules
    agents = _seat_agents(config, pair, rotation, "match", index, *pair)
    match = Match(rules, seed=f"bench:{config.seed}:match:{index}")
    try:
        play_match(match, agents)
    except EngineError as error:
        loser = _forfeiter(config, pair, error)
        where = f"match {index} (rotation {rotation}, round {match.round_index})"
        return MatchOutcome(pair, index, rotation, float(loser != pair[0]), match.round_index + 1, loser,
                            f"{where}: {error}")
    return MatchOutcome(pair, index, rotation, float(match.winner == rotation), match.round_index + 1)


def _run_task(config: TournamentConfig, task: _Task) -> list[DealOutcome] | list[MatchOutcome]:
    if task.kind == "deals":
        return [_play_deal(config, task.pair, index) for index in range(task.start, task.stop)]
    return [
        _play_match(config, task.pair, index, rotation)
        for index in range(task.start, task.stop)
        for rotation in range(config.rules.sides)
    ]


def _tasks(config: TournamentConfig, workers: int) -> Iterator[_Task]:
    for kind, count in (("deals", config.deals), ("matches", config.matches)):
        chunk = max(1, min(25, math.ceil(count * len(config.pairs) / (4 * workers))))
        for pair in config.pairs:
            for start in range(0, count, chunk):
                yield _Task(kind, pair, start, min(count, start + chunk))


def total_games(config: TournamentConfig) -> int:
    """Duplicate deals plus match seeds to play: the units of :func:`run_tournament`'s progress."""
    return len(config.pairs) * (config.deals + config.matches)


def run_tournament(
    config: TournamentConfig, workers: int | Executor = 1, progress: Callable[[int], None] | None = None
) -> TournamentOutcome:
    """Play the whole schedule on ``workers`` local processes (1: in this process), or on an
    entered :class:`~kseri.bench.executors.Executor` (a Ray cluster, say): the outcome is the same.

    Local workers are started with ``spawn``: a script that calls this with several workers
    must guard its top level with ``if __name__ == "__main__":``.

    ``progress`` is called with the number of deals or match seeds each finished piece of
    work held (they add up to :func:`total_games`).
    """
    if isinstance(workers, int):
        with local_executor(workers) as executor:
            return run_tournament(config, executor, progress)
    tasks = list(_tasks(config, workers.workers))
    results: dict[int, list[DealOutcome] | list[MatchOutcome]] = {}
    for index, result in workers.map(partial(_run_task, config), tasks, cleanup=close_engines):
        results[index] = result
        if progress is not None:
            progress(tasks[index].stop - tasks[index].start)
    outcome = TournamentOutcome(config)
    for index in range(len(tasks)):
        for item in results[index]:
            if isinstance(item, DealOutcome):
                outcome.deals.append(item)
            else:
                outcome.matches.append(item)
    return outcome

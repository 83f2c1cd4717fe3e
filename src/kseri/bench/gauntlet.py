"""The gauntlet: a level against a pool of opponents of different styles, on duplicate deals,
each result paired with the expert's against the same opponent on the same deals.

A level that beats the expert only by modelling the expert shows here: against each opponent
the gauntlet plays every deal twice over, once with the level against the opponent and once
with the baseline (the expert) against the same opponent, each game once per rotation of the
seats (:func:`~kseri.bench.duplicate.duplicate_round`'s rule). Per deal it records the level's
margin (its side's points less the mean of the others', per round) and the baseline's; the
**paired gain** is their difference deal by deal, so the deal's luck and the opponent's
strength cancel, and its interval is the Student-t interval of those differences
(:func:`paired_gain`). The opponent's seeds are the same in both games of a deal.

An opponent is anything that builds an agent from a seed (a picklable factory: a level, a
style, IS-MCTS from the ``rl`` interfaces) or an external engine's command over the engine
protocol; the ``kseri gauntlet`` command assembles the default pool (:mod:`kseri.cli.gauntlet_cmd`).
An engine that fails during a deal forfeits that deal: it is reported and left out of the
statistics. With :attr:`GauntletConfig.rounds` above 1 the deals are played as matches (the level
and the baseline kept over each, so what they read of the opponent carries on), and a failure
forfeits its match.

>>> from kseri import Rules
>>> config = GauntletConfig(builtin("greedy"), (builtin("random"),), Rules.preset("pisti"),
...                         deals=3, seed=1)
>>> outcome = run_gauntlet(config)
>>> [(d.opponent, d.index) for d in outcome.deals]
[(0, 0), (0, 1), (0, 2)]
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from kseri.agents.base import Agent, make_agent
from kseri.bench.duplicate import bench_deal, play_round, seating, side_difference
from kseri.bench.executors import Executor, local_executor
from kseri.bench.stats import Interval, mean_interval
from kseri.bench.tournament import derive_seed, engine_command
from kseri.protocol.client import EngineAgent, EngineError, EngineProcess
from kseri.rules import Rules

AgentMaker = Callable[..., Agent]
"""Builds an agent from ``seed=`` (module-level, so that worker processes can receive it)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player of the gauntlet: built by ``make(seed=...)``, or an external engine ``command``."""

    name: str
    make: AgentMaker | None = None
    command: tuple[str, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if (self.make is None) == (not self.command):
            raise ValueError(f"entrant {self.name!r} needs either a maker or an engine command")

    def describe(self) -> dict[str, Any]:
        """The entrant as JSON: its name and what plays for it."""
        if self.command:
            return {"name": self.name, "command": shlex.join(self.command)}
        return {"name": self.name, "plays": self.description or self.name}


def builtin(name: str, label: str | None = None, **options: Any) -> Entrant:
    """A built-in level or style with its options (e.g. ``builtin("noisy-expert", temperature=2)``),
    checked now so that a bad name or option fails before any game."""
    try:
        make_agent(name, seed=0, **options)
    except TypeError as error:
        raise ValueError(f"bad options for {name!r}: {error}") from None
    text = ", ".join(f"{key}={value}" for key, value in options.items())
    return Entrant(label or name, make=partial(make_agent, name, **options),
                   description=f"{name}({text})" if text else name)


def engine(spec: str) -> Entrant:
    """An external engine from ``NAME=COMMAND LINE`` (the command split as a shell would)."""
    name, words = engine_command(spec)
    return Entrant(name, command=words)


@dataclass(frozen=True, slots=True)
class GauntletConfig:
    """What to play: everything that determines the outcomes."""

    level: Entrant
    opponents: tuple[Entrant, ...]
    rules: Rules
    deals: int
    """Duplicate deals per opponent."""
    seed: int
    baseline: Entrant = field(default_factory=lambda: builtin("expert"))
    """What the level's margins are paired with (the expert)."""
    time_ms: int = 1000
    """Thinking time per play sent to external engines."""
    first_deal: int = 0
    """The index of the first deal of the series: runs over consecutive ranges pool, deal by deal."""
    grace_ms: int = 1000
    """How much longer than ``time_ms`` the host waits for an engine's play before it forfeits."""
    rounds: int = 1
    """Consecutive deals played as one match: the level and the baseline stay the same agents
    over them, in each seat order, so that what they read of the opponent in one round they may
    use in the next (the opponent is built for each deal, its seeds the deal's as always)."""

    def __post_init__(self) -> None:
        names = [self.level.name, self.baseline.name, *(o.name for o in self.opponents)]
        if not self.opponents:
            raise ValueError("a gauntlet needs at least one opponent")
        opponents = names[2:]
        if len(set(opponents)) != len(opponents) or {self.level.name, self.baseline.name} & set(opponents):
            raise ValueError(f"the opponents' names must differ from each other and from the level's and the "
                             f"baseline's: {', '.join(names)}")
        if self.deals < 1 or self.first_deal < 0:
            raise ValueError(f"a gauntlet needs deals >= 1 and first_deal >= 0, not {self.deals} and "
                             f"{self.first_deal}")
        if self.rounds < 1 or self.deals % self.rounds:
            raise ValueError(f"the deals ({self.deals}) must make whole matches of {self.rounds} rounds")
        if self.time_ms < 1 or self.grace_ms < 0:
            raise ValueError(f"time_ms must be positive and grace_ms not negative, not {self.time_ms} "
                             f"and {self.grace_ms}")


@dataclass(frozen=True, slots=True)
class GauntletDeal:
    """One duplicate deal against one opponent: the level's and the baseline's mean point
    difference per round over the opponent (``None``: forfeited by an engine)."""

    opponent: int
    index: int
    level: float | None
    baseline: float | None
    problem: str = ""


@dataclass(slots=True)
class GauntletOutcome:
    """Every deal's outcome, by opponent then deal."""

    config: GauntletConfig
    deals: list[GauntletDeal] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Task:
    opponent: int
    start: int
    stop: int


_ENGINES: dict[tuple[str, int], EngineProcess] = {}
"""This process's running external engines, one per entrant and seat, reused across games."""


def _agent(config: GauntletConfig, entrant: Entrant, seat: int, seed: int) -> Agent:
    if entrant.make is not None:
        return entrant.make(seed=seed)
    key = (entrant.name, seat)
    if key not in _ENGINES:
        _ENGINES[key] = EngineProcess(entrant.name, entrant.command)
    return EngineAgent(_ENGINES[key], seed, time_ms=config.time_ms, grace_ms=config.grace_ms)


def close_engines() -> None:
    """Stop this process's external engines."""
    while _ENGINES:
        _ENGINES.popitem()[1].close()


def _seed(config: GauntletConfig, index: int, rotation: int, seat: int, member: int) -> int:
    return derive_seed(config.seed, "gauntlet", index, rotation, seat, member)


def _margins(config: GauntletConfig, player: Entrant, opponent: Entrant, start: int) -> list[float]:
    """``player``'s mean point difference per round over ``opponent`` on each deal of the match
    from deal ``start``; the opponent's seeds depend on the deal and seat only, the same for the
    level and the baseline, and the player is built once a match and seat, with the seeds of the
    match's first deal."""
    rules = config.rules
    indices = range(start, start + config.rounds)
    totals = [0.0] * config.rounds
    for rotation in range(rules.sides):
        order = seating(rules, rotation)
        players = {seat: _agent(config, player, seat, _seed(config, start, rotation, seat, 0))
                   for seat, member in enumerate(order) if member == 0}
        for round_, index in enumerate(indices):
            agents = [players[seat] if member == 0 else
                      _agent(config, opponent, seat, _seed(config, index, rotation, seat, member))
                      for seat, member in enumerate(order)]
            result = play_round(rules, bench_deal(rules, config.seed, index), agents)
            totals[round_] += side_difference(result.points, rotation)
    return [total / rules.sides for total in totals]


def _play(config: GauntletConfig, opponent: int, start: int) -> list[GauntletDeal]:
    """The match of :attr:`GauntletConfig.rounds` deals from ``start``, by the level and by the
    baseline."""
    against = config.opponents[opponent]
    indices = range(start, start + config.rounds)
    try:
        level = _margins(config, config.level, against, start)
        baseline = _margins(config, config.baseline, against, start)
    except EngineError as error:
        return [GauntletDeal(opponent, index, None, None, f"deal {index}: {error}") for index in indices]
    return [GauntletDeal(opponent, index, mine, theirs)
            for index, mine, theirs in zip(indices, level, baseline, strict=True)]


def _run_task(config: GauntletConfig, task: _Task) -> list[GauntletDeal]:
    starts = range(task.start, task.stop, config.rounds)
    return [deal for start in starts for deal in _play(config, task.opponent, start)]


def _tasks(config: GauntletConfig, workers: int) -> Iterator[_Task]:
    chunk = max(1, min(25, math.ceil(config.deals * len(config.opponents) / (4 * workers))))
    chunk = math.ceil(chunk / config.rounds) * config.rounds
    stop = config.first_deal + config.deals
    for opponent in range(len(config.opponents)):
        for start in range(config.first_deal, stop, chunk):
            yield _Task(opponent, start, min(stop, start + chunk))


def run_gauntlet(config: GauntletConfig, workers: int | Executor = 1,
                 progress: Callable[[int], None] | None = None) -> GauntletOutcome:
    """Play every opponent on every deal, on ``workers`` local processes (1: in this process) or
    on an entered :class:`~kseri.bench.executors.Executor`: the outcome is the same.

    ``progress`` is called with the number of deals each finished piece of work held (they add
    up to ``deals`` times the number of opponents).
    """
    if isinstance(workers, int):
        with local_executor(workers) as executor:
            return run_gauntlet(config, executor, progress)
    tasks = list(_tasks(config, workers.workers))
    results: dict[int, list[GauntletDeal]] = {}
    for index, result in workers.map(partial(_run_task, config), tasks, cleanup=close_engines):
        results[index] = result
        if progress is not None:
            progress(tasks[index].stop - tasks[index].start)
    return GauntletOutcome(config, [deal for index in range(len(tasks)) for deal in results[index]])


def paired_gain(level: Sequence[float], baseline: Sequence[float], confidence: float = 0.95) -> Interval:
    """The mean of ``level[i] - baseline[i]`` (two results on the same deals) with its Student-t
    interval: the level's gain over the baseline, each deal's luck cancelled."""
    if len(level) != len(baseline):
        raise ValueError(f"paired results need as many values on each side, not {len(level)} and "
                         f"{len(baseline)}")
    return mean_interval([a - b for a, b in zip(level, baseline, strict=True)], confidence)


def pooled_gain(gains: Sequence[Mapping[int, float]], confidence: float = 0.95) -> Interval | None:
    """The gain over the baseline averaged over the opponents, deal by deal, with its interval:
    ``gains[opponent]`` maps each scored deal's index to the level's gain on it (a deal counts
    when every opponent's game on it was scored); ``None`` when no deal counts."""
    if not gains:
        return None
    common = set(gains[0]).intersection(*gains[1:])
    means = [sum(each[index] for each in gains) / len(gains) for index in sorted(common)]
    return mean_interval(means, confidence) if means else None

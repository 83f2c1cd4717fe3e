"""What the analysis's accuracy says: the mean accuracy of each bot level, with intervals, overall
and per phase of the round (early: the first batch; middle; last: the stock empty).

Each game is one round (the rules given) on deal seed ``g``: the level under test plays seat
``g % 2`` against the opponent level (default ``expert``) at the other seat; the same deals serve
every level, so two levels are compared game by game. Only the tested seat's plays are reviewed
(:func:`kseri.analysis.review_play`, the default budget, from its view); a game's accuracy is
the mean score of its decisions, as ``kseri analyse`` reports it. The table gives each level's
mean over games with its 95% t interval, and the difference between each level and the one
below on the same deals (paired), with its interval: the scale separates the levels when every
difference's interval lies above 0.

Usage: ``PYTHONPATH=src nice -n 10 python benchmarks/analysis_levels.py [--games 200]
[--levels random greedy expert master] [--opponent expert] [--rules greek] [--iterations N]
[--workers 1] [--json FILE]``
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import pairwise
from statistics import fmean
from typing import Any

from rich.console import Console
from rich.table import Table

from kseri import Match, Rules
from kseri.agents import make_agent
from kseri.agents.master import MasterAgent
from kseri.analysis import ANALYSIS_ITERATIONS, review_play
from kseri.bench.stats import Interval, mean_interval

PHASES = ("early", "middle", "last")
LEVELS = ("random", "greedy", "expert", "master")


def phase_of(rules: Rules, plays_so_far: int, stock: int) -> str:
    """The round's phase of a play: its first batch, the last one (the stock empty), or between."""
    if plays_so_far < rules.players * rules.batch_size:
        return "early"
    return "last" if stock == 0 else "middle"


def one_game(level: str, opponent: str, spec: str, game: int, iterations: int) -> dict[str, list[float]]:
    """The tested seat's decision scores in game ``game``, per phase and overall."""
    rules = Rules.from_spec(spec)
    match = Match(rules, seed=game)
    seat = game % 2
    bots = {seat: make_agent(level, seed=game), 1 - seat: make_agent(opponent, seed=10_000 + game)}
    judge = MasterAgent(seed=77, iterations=iterations)
    scores: dict[str, list[float]] = {phase: [] for phase in (*PHASES, "all")}
    while not match.is_round_over():
        turn = match.turn
        assert turn is not None
        view = match.view(turn)
        card = bots[turn].choose(view)
        if turn == seat:
            review = review_play(view, card, judge)
            if not review.forced:
                scores[phase_of(rules, len(view.plays), view.stock_size)].append(review.score)
                scores["all"].append(review.score)
        match.play(card)
    return scores


def _job(args: tuple[str, str, str, int, int]) -> tuple[str, int, dict[str, list[float]]]:
    level, opponent, spec, game, iterations = args
    return level, game, one_game(level, opponent, spec, game, iterations)


def _cell(interval: Interval | None) -> str:
    if interval is None:
        return "–"
    if interval.low is None or interval.high is None:
        return f"{interval.estimate:.1f}"
    return f"{interval.estimate:.1f} [{interval.low:.1f}, {interval.high:.1f}]"


def summarise(levels: Sequence[str], games: dict[str, dict[int, dict[str, list[float]]]]) -> dict[str, Any]:
    """Per level and phase: the mean game accuracy (%) with its interval; per adjacent pair of
    levels: the paired difference of game accuracies with its interval."""

    def accuracy(scores: list[float]) -> float | None:
        return 100 * fmean(scores) if scores else None

    table: dict[str, Any] = {}
    for level in levels:
        row = {}
        for phase in (*PHASES, "all"):
            values = [a for g in games[level].values() if (a := accuracy(g[phase])) is not None]
            row[phase] = mean_interval(values) if values else None
        table[level] = row
    gaps = {}
    for lower, upper in pairwise(levels):
        differences = []
        for game, scores in games[upper].items():
            ours, theirs = accuracy(scores["all"]), accuracy(games[lower].get(game, {}).get("all", []))
            if ours is not None and theirs is not None:
                differences.append(ours - theirs)
        gaps[f"{upper} − {lower}"] = mean_interval(differences) if differences else None
    return {"levels": table, "differences": gaps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--levels", nargs="+", default=list(LEVELS))
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--rules", default="greek")
    parser.add_argument("--iterations", type=int, default=ANALYSIS_ITERATIONS)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", help="Also write the figures to this file.")
    args = parser.parse_args()
    jobs = [(level, args.opponent, args.rules, game, args.iterations)
            for game in range(args.games) for level in args.levels]
    games: dict[str, dict[int, dict[str, list[float]]]] = {level: {} for level in args.levels}
    start = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(_job, jobs, chunksize=4))
    else:
        results = [_job(job) for job in jobs]
    for level, game, scores in results:
        games[level][game] = scores
    seconds = time.perf_counter() - start
    summary = summarise(args.levels, games)
    console = Console()
    title = f"accuracy (%) per level, {args.games} games each, {args.rules}, against {args.opponent}"
    table = Table(title=title)
    for column in ("level", "all", *PHASES):
        table.add_column(column, justify="left" if column == "level" else "right")
    for level in args.levels:
        row = summary["levels"][level]
        table.add_row(level, *(_cell(row[phase]) for phase in ("all", *PHASES)))
    console.print(table)
    gaps = Table(title="paired difference on the same deals (points of accuracy)")
    gaps.add_column("levels")
    gaps.add_column("difference", justify="right")
    gaps.add_column("separated", justify="right")
    for name, interval in summary["differences"].items():
        separated = interval is not None and interval.low is not None and interval.low > 0
        gaps.add_row(name, _cell(interval), "yes" if separated else "no")
    console.print(gaps)
    console.print(f"{len(jobs)} games in {seconds:.0f} s ({args.workers} worker(s), "
                  f"{args.iterations} worlds a review)")
    if args.json:
        def plain(interval: Interval | None) -> list[float | None] | None:
            return None if interval is None else [interval.estimate, interval.low, interval.high]

        data = {"games": args.games, "rules": args.rules, "opponent": args.opponent,
                "iterations": args.iterations,
                "levels": {level: {phase: plain(value) for phase, value in row.items()}
                           for level, row in summary["levels"].items()},
                "differences": {name: plain(value) for name, value in summary["differences"].items()}}
        with open(args.json, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=1)


if __name__ == "__main__":
    main()

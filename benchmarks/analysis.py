"""Post-game analysis speed: seconds to analyse a game of 5 rounds on one core.

Each game is 5 rounds between expert bots (the rules given); the figure is the median over
games of one full analysis (:func:`kseri.analysis.analyse_record`, the default budget), printed
beside the baseline: the master choosing every play of the same game with the same budget
(what the analysis adds is judging every legal card, forced plays skipped). Target: < 30 s.

Usage: ``PYTHONPATH=src python benchmarks/analysis.py [--games 3] [--rules greek] [--iterations N]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from kseri import Match, Rules
from kseri.agents import make_agent
from kseri.agents.master import MasterAgent
from kseri.analysis import ANALYSIS_ITERATIONS, analyse_record, record_plays
from kseri.records import record_from_match

ROUNDS = 5


def five_rounds(rules: Rules, seed: int) -> dict[str, Any]:
    """The record of 5 rounds (a match cut there, or a shorter finished match) by experts."""
    match = Match(rules, seed=seed)
    bots = [make_agent("expert", seed=seed * 10 + seat) for seat in range(rules.players)]
    while True:
        while match.turn is not None:
            match.play(bots[match.turn].choose(match.view(match.turn)))
        if match.is_over() or len(match.round_results) == ROUNDS:
            return record_from_match(match)
        match.next_round()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--rules", default="greek")
    parser.add_argument("--iterations", type=int, default=ANALYSIS_ITERATIONS)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rules = Rules.from_spec(args.rules)
    analysing, choosing, plays = [], [], []
    for seed in range(args.games):
        record = five_rounds(rules, seed)
        views = record_plays(record)
        plays.append(len(views))
        master = MasterAgent(seed=0, iterations=args.iterations)
        start = time.perf_counter()
        for view, _, _, _ in views:
            master.choose(view)
        choosing.append(time.perf_counter() - start)
        start = time.perf_counter()
        analyse_record(record, iterations=args.iterations)
        analysing.append(time.perf_counter() - start)
    print(f"analysis of {args.games} game(s) of {ROUNDS} rounds, {args.rules}, "
          f"{args.iterations} worlds a play, one core; median plays a game {statistics.median(plays):.0f}")
    print(f"  master choosing every play (baseline): {statistics.median(choosing):6.2f} s a game")
    print(f"  full analysis:                         {statistics.median(analysing):6.2f} s a game"
          f"  (target < 30 s)")


if __name__ == "__main__":
    main()

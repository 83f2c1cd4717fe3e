"""Tournament throughput: duplicate deals per second on one worker (the baseline) and on every
core, and the cost of playing through the engine protocol instead of in process.

Run: ``PYTHONPATH=src python benchmarks/bench_tournament.py [--deals 200] [--repeats 3]``.
Prints medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from kseri import Rules
from kseri.bench.tournament import Player, TournamentConfig, builtin_player, run_tournament


def _deals_per_second(config: TournamentConfig, workers: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run_tournament(config, workers)
        times.append(time.perf_counter() - start)
    return len(config.pairs) * config.deals / statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rules = Rules.preset("greek")
    cores = os.cpu_count() or 1
    pair = (builtin_player("greedy"), builtin_player("random"))
    bots = TournamentConfig(pair, rules, args.deals, 0, seed=1)
    engine = Player("greedy-engine", command=(sys.executable, "-m", "kseri", "engine", "--level", "greedy"))
    external = TournamentConfig((builtin_player("random"), engine), rules, args.deals, 0, seed=1)
    print(f"duplicate deals per second, greek, {args.deals} deals, median of {args.repeats}")
    print(f"{'what':<42}{'1 worker (baseline)':>22}{f'{cores} workers':>14}")
    cases = (("greedy vs random, in process", bots), ("random vs greedy over the protocol", external))
    for label, config in cases:
        one = _deals_per_second(config, 1, args.repeats)
        many = _deals_per_second(config, cores, args.repeats)
        print(f"{label:<42}{one:>22.1f}{many:>14.1f}")


if __name__ == "__main__":
    main()

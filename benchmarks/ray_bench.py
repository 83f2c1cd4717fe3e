"""Tournaments and simulations on a Ray cluster of this machine against the local executors:
duplicate deals per second (greedy vs random, greek) and simulated matches per second, in this
process (the baseline), on a pool of one process per core, and on a local Ray cluster of as
many CPUs; plus the seconds it takes to start and stop that cluster, which each
``--ray`` run without an address pays once.

Run: ``PYTHONPATH=src python benchmarks/ray_bench.py [--deals 1000] [--games 500] [--repeats 3]``
(needs kseri[cluster]). Prints medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from kseri import Rules
from kseri.bench.executors import Executor, ProcessPool, RayCluster
from kseri.bench.simulation import run_simulation
from kseri.bench.tournament import TournamentConfig, builtin_player, run_tournament


def _per_second(run: Callable[[], object], units: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return units / statistics.median(times)


def _rates(executor: Executor, config: TournamentConfig, games: int, repeats: int) -> tuple[float, float]:
    deals = _per_second(lambda: run_tournament(config, executor), len(config.pairs) * config.deals, repeats)
    matches = _per_second(lambda: run_simulation(config.rules, games, "bench", executor), games, repeats)
    return deals, matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--games", type=int, default=500, help="simulated matches")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    config = TournamentConfig((builtin_player("greedy"), builtin_player("random")), Rules.preset("greek"),
                              args.deals, 0, seed=1)
    rows = [("this process (baseline)", _rates(Executor(), config, args.games, args.repeats))]
    rows.append((f"{cores} local processes", _rates(ProcessPool(cores), config, args.games, args.repeats)))
    starts, stops = [], []
    for repeat in range(args.repeats):
        start = time.perf_counter()
        cluster = RayCluster()
        with cluster:
            starts.append(time.perf_counter() - start)
            if repeat == 0:
                rates = _rates(cluster, config, args.games, args.repeats)
                rows.append((f"local Ray cluster, {cluster.workers} CPUs", rates))
            stop = time.perf_counter()
        stops.append(time.perf_counter() - stop)
    print(f"greek, greedy vs random: {args.deals} duplicate deals; {args.games} simulated matches; "
          f"median of {args.repeats}")
    print(f"{'where':<34}{'deals/s':>10}{'matches/s':>12}")
    for label, (deals, matches) in rows:
        print(f"{label:<34}{deals:>10.1f}{matches:>12.1f}")
    print(f"local Ray cluster start {statistics.median(starts):.1f} s, stop {statistics.median(stops):.1f} s")


if __name__ == "__main__":
    main()

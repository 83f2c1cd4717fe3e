"""The master's move time against opponents of different styles: CPU time a move on one core
(median and 95th percentile) at the default budget, the master at seat 0 of the same
``bench_deal`` rounds against each opponent. The style read decides how the end is played
(solved against the expert, rolled out against the others), so the time depends on who sits
across.

    PYTHONPATH=src python benchmarks/master_times.py              # 10 rounds an opponent
    PYTHONPATH=src python benchmarks/master_times.py --rounds 3   # a quick run
"""

from __future__ import annotations

import argparse
import statistics
import time

from kseri import Match, Rules
from kseri.agents import make_agent
from kseri.bench.duplicate import bench_deal

OPPONENTS: dict[str, tuple[str, dict[str, float]]] = {
    "expert": ("expert", {}),
    "noisy-expert-2": ("noisy-expert", {"temperature": 2.0}),
    "greedy": ("greedy", {}),
    "random": ("random", {}),
}
"""The opponents by their gauntlet names, with the level or style and options that build them."""


def move_times(preset: str, opponent: str, rounds: int) -> list[float]:
    """The master's CPU seconds for each of its moves in ``rounds`` rounds against ``opponent``."""
    rules = Rules.preset(preset)
    name, options = OPPONENTS[opponent]
    master = make_agent("master", seed=1)
    other = make_agent(name, seed=2, **options)
    times = []
    for index in range(rounds):
        match = Match(rules, deal=bench_deal(rules, "times", index))
        while (seat := match.turn) is not None:
            view = match.view(seat)
            if seat == 0:
                start = time.process_time()
                card = master.choose(view)
                times.append(time.process_time() - start)
                match.play(card)
            else:
                match.play(other.choose(view))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="rounds against each opponent")
    parser.add_argument("--presets", nargs="+", default=["greek", "pisti"])
    args = parser.parse_args()
    warm = Match(seed=0)
    assert warm.turn is not None
    make_agent("master").choose(warm.view(warm.turn))  # the compile, or its disk cache, not timed
    print("== the master's move, CPU ms on one core (median, p95) ==", flush=True)
    for preset in args.presets:
        for opponent in OPPONENTS:
            times = sorted(move_times(preset, opponent, args.rounds))
            median, p95 = 1000 * statistics.median(times), 1000 * times[int(0.95 * len(times))]
            print(f"{preset:6} against {opponent:15} n={len(times):4}  median {median:6.2f}  p95 {p95:6.2f}")


if __name__ == "__main__":
    main()

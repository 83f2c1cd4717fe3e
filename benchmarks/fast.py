"""The fast core's speed: random rounds per second for every preset, beside ``Match`` in the same run.

Each figure is the median over repeats of the CPU time of this process (one core; the machine
may be shared). A round is dealt and played to its score with uniformly random plays:

- ``kseri.fast``: ``play_rounds(rules, rounds, seed=repeat)``: the kernel deals (its own
  shuffle and the preset's centre procedure), plays and scores every round;
- ``Match``: ``Match(rules, seed=index)`` (the SHA-512 deal) and ``match.play(rng.choice(...))``
  to the round's end, as ``benchmarks/engine.py`` times it.

Also: the Greek round with the ``expert`` policy at both seats, whole random Greek matches
(``play_matches``, the figure behind ``kseri simulate --fast``), and the warm-up: the compile in
a fresh process with an empty cache, then the load of the cached machine code in another.

Usage: ``PYTHONPATH=src python benchmarks/fast.py [--repeats 5] [--rounds 200000] [--match-rounds 2000]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kseri import PRESETS, Match, Rules
from kseri.fast import play_matches, play_rounds, warm_up

SOURCE = str(Path(__file__).resolve().parent.parent / "src")


def median_rate(run: Callable[[int], int], repeats: int) -> float:
    """The median over ``repeats`` of items per CPU second (``run(repeat)`` returns the items)."""
    rates = []
    for repeat in range(repeats):
        start = time.process_time()
        items = run(repeat)
        rates.append(items / (time.process_time() - start))
    return statistics.median(rates)


def match_rounds(rules: Rules, rounds: int, seed: int) -> int:
    """Random rounds through ``Match``'s public API, the deal included."""
    rng = random.Random(seed)
    for index in range(rounds):
        match = Match(rules, seed=index)
        while match.turn is not None:
            match.play(rng.choice(match.legal_plays()))
    return rounds


def warm_up_seconds(cache: str) -> float:
    """``warm_up()`` in a fresh process whose numba cache is ``cache``."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": SOURCE}
    code = "from kseri.fast import warm_up; print(warm_up())"
    output = subprocess.run([sys.executable, "-c", code], env=environment, check=True, capture_output=True,
                            text=True).stdout
    return float(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=200_000, help="rounds per repeat, kseri.fast")
    parser.add_argument("--match-rounds", type=int, default=2_000, help="rounds per repeat, Match")
    parser.add_argument("--no-warm-up", action="store_true", help="skip the compile and load timings")
    args = parser.parse_args()

    if not args.no_warm_up:
        with tempfile.TemporaryDirectory() as cache:
            compiled = warm_up_seconds(cache)
            loaded = warm_up_seconds(cache)
        print(f"warm-up: compile {compiled:.1f} s (empty cache), load {loaded:.2f} s (cached)")
    warm_up()

    print(f"random rounds per CPU second, median of {args.repeats} "
          f"({args.rounds:,} rounds a repeat for kseri.fast, {args.match_rounds:,} for Match)")
    print(f"{'preset':14} {'kseri.fast':>12} {'Match':>10} {'ratio':>7}")
    for name in PRESETS:
        rules = Rules.preset(name)
        fast = median_rate(lambda repeat, rules=rules: len(play_rounds(rules, args.rounds, seed=repeat)),
                           args.repeats)
        plain = median_rate(lambda repeat, rules=rules: match_rounds(rules, args.match_rounds, repeat),
                            args.repeats)
        print(f"{name:14} {fast:12,.0f} {plain:10,.0f} {fast / plain:6.0f}x")

    greek = Rules.preset("greek")
    expert = median_rate(lambda repeat: len(play_rounds(greek, args.rounds // 4, seed=repeat,
                                                        policies="expert")), args.repeats)
    print(f"greek, expert at both seats: {expert:,.0f} rounds per CPU second")
    matches = median_rate(lambda repeat: len(play_matches(greek, args.rounds // 10, seed=repeat)),
                          args.repeats)
    print(f"greek, whole random matches: {matches:,.0f} matches per CPU second")


if __name__ == "__main__":
    main()

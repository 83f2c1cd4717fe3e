"""Engine speed: random full rounds per second, ``Match.copy()`` and ``play`` + ``undo``.

Every figure is a median over repeats on one core, printed beside the same figure for the plain
reference implementation of the rules (``tests/engine/reference.py``) run in the same process.

Usage: ``PYTHONPATH=src python benchmarks/engine.py [--repeats 7] [--rounds 2000]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "engine"))

from kseri import Match, Rules

try:
    import reference
except ImportError:  # before the reference existed
    reference = None


def rounds_per_second(make: Callable[[Rules, int], Any], rules: Rules, rounds: int, seed: int) -> float:
    """Random full rounds per second through the public API, the deal included."""
    rng = random.Random(seed)
    start = time.perf_counter()
    for index in range(rounds):
        match = make(rules, index)
        while match.turn is not None:
            match.play(rng.choice(match.legal_plays()))
    return rounds / (time.perf_counter() - start)


def mid_round(make: Callable[[Rules, int], Any], rules: Rules, plays: int) -> Any:
    """A match some plays into its first round."""
    match, rng = make(rules, 1), random.Random(1)
    for _ in range(plays):
        match.play(rng.choice(match.legal_plays()))
    return match


def micros(action: Callable[[], object], number: int) -> float:
    """Microseconds per call of ``action``."""
    start = time.perf_counter()
    for _ in range(number):
        action()
    return (time.perf_counter() - start) / number * 1e6


def play_undo(match: Any) -> Callable[[], object]:
    """One play of the first legal card and its undo."""
    def action() -> object:
        match.play(match.legal_plays()[0])
        return match.undo()
    return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per repeat")
    args = parser.parse_args()
    engines: list[tuple[str, Callable[[Rules, int], Any]]] = [
        ("kseri.engine", lambda rules, seed: Match(rules, seed=seed)),
    ]
    if reference is not None:
        engines.append(("reference", lambda rules, seed: reference.Match(rules, seed=seed)))
    print(f"python {sys.version.split()[0]}, medians of {args.repeats} repeats")
    for name, make in engines:
        for preset in ("greek", "pisti"):
            rules = Rules.preset(preset)
            figures = [rounds_per_second(make, rules, args.rounds, seed) for seed in range(args.repeats)]
            print(f"{name:13} {preset:6} rounds/s       {statistics.median(figures):10,.0f}")
        match = mid_round(make, Rules.preset("greek"), 20)
        copies = [micros(match.copy, 20000) for _ in range(args.repeats)]
        print(f"{name:13} greek  copy (us)      {statistics.median(copies):10.2f}")
        undos = [micros(play_undo(match), 20000) for _ in range(args.repeats)]
        print(f"{name:13} greek  play+undo (us) {statistics.median(undos):10.2f}")


if __name__ == "__main__":
    main()

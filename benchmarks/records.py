"""Record speed: writing, rebuilding, re-playing, verifying and the notation, per match.

Each figure is the median over matches (random play, the rules given) of the best of three
calls, in milliseconds, printed beside the baseline: playing that match through the engine.

Usage: ``PYTHONPATH=src python benchmarks/records.py [--matches 30] [--rules greek]``
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from kseri import Match, Rules
from kseri.notation import format_notation, parse_notation
from kseri.records import match_from_record, record_from_match, replay_record, verify_record


def played(rules: Rules, seed: int) -> Match:
    """A full match of uniformly random plays."""
    match, rng = Match(rules, seed=seed), random.Random(seed)
    while True:
        while match.turn is not None:
            match.play(rng.choice(match.legal_plays()))
        if match.is_over():
            return match
        match.next_round()


def millis(function: Callable[[Any], object], argument: Any, tries: int = 3) -> float:
    """Milliseconds one call of ``function(argument)`` takes (the best of ``tries``)."""
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        function(argument)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--rules", default="greek")
    args = parser.parse_args()
    rules = Rules.from_spec(args.rules)
    figures: dict[str, list[float]] = {}
    sizes: list[int] = []
    for seed in range(args.matches):
        match = played(rules, seed)
        record = json.loads(json.dumps(record_from_match(match)))
        text = format_notation(record)
        sizes.append(len(json.dumps(record, separators=(",", ":"))))
        steps: list[tuple[str, Callable[[Any], object], Any]] = [
            ("play the match (baseline)", lambda s: played(rules, s), seed),
            ("record_from_match", record_from_match, match),
            ("json.dumps (JSON Lines)", lambda r: json.dumps(r, separators=(",", ":")), record),
            ("match_from_record", match_from_record, record),
            ("replay_record", replay_record, record),
            ("verify_record", verify_record, record),
            ("format_notation", format_notation, record),
            ("parse_notation", parse_notation, text),
        ]
        for name, function, argument in steps:
            figures.setdefault(name, []).append(millis(function, argument))
    baseline = statistics.median(figures["play the match (baseline)"])
    print(f"python {sys.version.split()[0]}, rules {args.rules}, medians over {args.matches} matches")
    print(f"{'':28} {'ms/match':>9} {'x baseline':>11}")
    for name, values in figures.items():
        median = statistics.median(values)
        print(f"{name:28} {median:9.2f} {median / baseline:11.2f}")
    print(f"record size: median {statistics.median(sizes):,.0f} bytes of compact JSON")


if __name__ == "__main__":
    main()

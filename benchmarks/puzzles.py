"""Puzzle generation speed: puzzles cut per CPU-minute from stored games, on one core.

The games are single rounds between bots (``--level``, default ``expert``: what a server stores
from its bot tables), given as records, the way ``kseri puzzles generate`` reads them. For each
game the CPU time (``time.process_time``) of :func:`kseri.analysis.puzzles_from_record` (the
default search) is measured, beside the baseline: the post-game review of the same game
(:func:`kseri.analysis.analyse_record`). Printed: puzzles per CPU-minute over all games, the
median CPU seconds per game of both, and their ratio. (Serving time with many solvers comes with
the server's puzzle rooms.)

Usage: ``PYTHONPATH=src nice -n 10 python benchmarks/puzzles.py [--games 20] [--level expert]
[--rules greek]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from kseri.analysis import analyse_record, puzzles_from_record
from kseri.analysis.puzzles import bot_records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--level", default="expert")
    parser.add_argument("--rules", default="greek")
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    records = bot_records(args.games + 1, args.level, args.rules, args.seed)
    puzzles_from_record(records.pop())  # compile or load the kernels first
    cutting, reviewing, found, positions = [], [], 0, 0
    for record in records:
        start = time.process_time()
        puzzles = puzzles_from_record(record)
        cutting.append(time.process_time() - start)
        start = time.process_time()
        analysis = analyse_record(record)
        reviewing.append(time.process_time() - start)
        found += len(puzzles)
        positions += len(analysis.reviews)
    minutes = sum(cutting) / 60
    print(f"{args.games} games ({args.rules}, {args.level} bots, {positions} positions): {found} puzzles")
    print(f"puzzles per CPU-minute: {found / minutes:.0f}")
    cut, review = statistics.median(cutting), statistics.median(reviewing)
    print(f"median CPU s per game: cutting puzzles {cut:.2f}, reviewing (baseline) {review:.2f}, "
          f"ratio {cut / review:.2f}")


if __name__ == "__main__":
    main()

"""Puzzle generation speed: puzzles cut per CPU-minute from stored games, on one core.

The games are single rounds between bots (``--level``, default ``expert``: what a server stores
from its bot tables), given as records, the way ``kseri puzzles generate`` reads them. For each
game the CPU time (``time.process_time``) of :func:`kseri.analysis.puzzles_from_record` (the
default search) is measured, beside the baseline: the post-game review of the same game
(:func:`kseri.analysis.analyse_record`). Printed: puzzles per CPU-minute over all games, the
median CPU seconds per game of both, and their ratio.

``--serve`` measures instead the time to serve the next puzzle (``GET /api/puzzles/next``, median
and p99) with ``--solvers`` (100) signed-in solvers at once against a real ``kseri serve`` on
loopback (SQLite): each asks for its next puzzle, answers it, and asks again, ``--rounds`` times;
beside it, the baseline: ``GET /api/rules`` (the server's lightest answer) timed the same way at
the same moments.

Usage: ``PYTHONPATH=src nice -n 10 python benchmarks/puzzles.py [--games 20] [--level expert]
[--rules greek]`` or ``... benchmarks/puzzles.py --serve [--solvers 100] [--rounds 10]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from kseri.analysis import analyse_record, puzzles_from_record
from kseri.analysis.puzzles import bot_records

sys.path.insert(0, str(Path(__file__).parent))
from server import start_server

SERVE_LIMITS = "signups_per_hour=100000,http_connections_per_address=100000,connections_per_address=100000"


async def sign_up(client: httpx.AsyncClient, number: int, signing: asyncio.Semaphore) -> str:
    """A new account for one solver (a few at a time: Argon2 is slow on purpose); its CSRF token."""
    async with signing:
        answer = await client.post("/api/account/signup", json={
            "username": f"solver{number}", "password": "correct horse battery", "seats": []})
    answer.raise_for_status()
    csrf: str = answer.json()["csrf"]
    return csrf


async def solver(client: httpx.AsyncClient, csrf: str, rounds: int, serving: list[float],
                 baseline: list[float]) -> None:
    """One signed-in solver: next puzzle, an answer (its first card), ``rounds`` times."""
    for _ in range(rounds):
        start = time.perf_counter()
        puzzle = (await client.get("/api/puzzles/next")).raise_for_status().json()
        serving.append(time.perf_counter() - start)
        start = time.perf_counter()
        (await client.get("/api/rules")).raise_for_status()
        baseline.append(time.perf_counter() - start)
        (await client.post(f"/api/puzzles/{puzzle['id']}/answer", json={"card": puzzle["hand"][0]},
                           headers={"X-CSRF-Token": csrf})).raise_for_status()


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def serve(solvers: int, rounds: int) -> None:
    """Time ``GET /api/puzzles/next`` with ``solvers`` solvers at once; print median and p99."""
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder), "--limits", SERVE_LIMITS)
        try:
            serving: list[float] = []
            baseline: list[float] = []

            async def run() -> None:
                clients = [httpx.AsyncClient(base_url=url, timeout=120) for _ in range(solvers)]
                signing = asyncio.Semaphore(4)
                tokens = await asyncio.gather(*(sign_up(c, n, signing) for n, c in enumerate(clients)))
                await asyncio.gather(*(solver(c, csrf, rounds, serving, baseline)
                                       for c, csrf in zip(clients, tokens, strict=True)))
                for client in clients:
                    await client.aclose()

            asyncio.run(run())
        finally:
            process.terminate()
            process.wait(60)
    ms = 1000
    print(f"{solvers} solvers x {rounds} puzzles on loopback (SQLite): {len(serving)} requests each")
    print(f"next puzzle: median {statistics.median(serving) * ms:.1f} ms, "
          f"p99 {percentile(serving, .99) * ms:.1f} ms")
    print(f"baseline /api/rules: median {statistics.median(baseline) * ms:.1f} ms, "
          f"p99 {percentile(baseline, .99) * ms:.1f} ms")
    print(f"ratio of medians: {statistics.median(serving) / statistics.median(baseline):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--level", default="expert")
    parser.add_argument("--rules", default="greek")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--serve", action="store_true", help="time serving the next puzzle instead")
    parser.add_argument("--solvers", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if args.serve:
        serve(args.solvers, args.rounds)
        return
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

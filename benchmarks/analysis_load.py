"""The server's play latency while post-game analyses run (they run in a worker process).

Loads a server with concurrent two-player tables of scripted players (``benchmarks/server.py``)
twice: alone (the baseline), then while finished games are analysed one after another through
``GET /api/tables/{id}/analysis``. Prints plays per second and a play's round trip (median,
99th percentile) for both runs, and how many analyses finished.

    PYTHONPATH=src python benchmarks/analysis_load.py                # 20 tables, 15 s a run
    PYTHONPATH=src python benchmarks/analysis_load.py --tables 40 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import measure, start_server  # benchmarks/server.py


def finished_games(url: str, count: int) -> list[str]:
    """``count`` matches between greedy bots, played to the end by the server."""
    seats = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}]
    body = {"seats": seats, "public": False}
    ids = [httpx.post(f"{url}/api/tables", json=body, timeout=30).json()["table"]["id"] for _ in range(count)]
    deadline = time.monotonic() + 300
    while any(httpx.get(f"{url}/api/tables/{i}", timeout=30).json()["status"] != "finished" for i in ids):
        if time.monotonic() > deadline:
            raise SystemExit("the bot games did not finish in 300 s")
        time.sleep(0.5)
    return ids


async def analyse_all(url: str, ids: list[str], stop: float) -> int:
    """Ask for each game's analysis in turn until ``stop``; how many were computed."""
    done = 0
    async with httpx.AsyncClient(timeout=300) as client:
        for table_id in ids:
            if time.perf_counter() >= stop:
                break
            answer = await client.get(f"{url}/api/tables/{table_id}/analysis")
            answer.raise_for_status()
            done += 1
    return done


async def loaded(url: str, tables: int, seconds: float,
                 ids: list[str]) -> tuple[tuple[float, float, float, float, float], int]:
    stop = time.perf_counter() + seconds
    figures, analysed = await asyncio.gather(measure(url, tables, seconds), analyse_all(url, ids, stop))
    return figures, analysed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=20, help="concurrent tables (two players each)")
    parser.add_argument("--seconds", type=float, default=15, help="length of each run")
    parser.add_argument("--games", type=int, default=12, help="finished games to analyse")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder))
        try:
            ids = finished_games(url, args.games)
            alone = asyncio.run(measure(url, args.tables, args.seconds))
            busy, analysed = asyncio.run(loaded(url, args.tables, args.seconds, ids))
        finally:
            process.terminate()
            process.wait(10)
    print(f"kseri server, SQLite, {args.tables} tables, {args.seconds:g} s a run, {os.cpu_count()} cores; "
          "client, server and analysis worker on one machine")
    print(f"{'':>28} {'plays/s':>9} {'median ms':>10} {'p99 ms':>8}")
    print(f"{'no analysis (baseline)':>28} {alone[0]:9.0f} {alone[1]:10.1f} {alone[2]:8.1f}")
    print(f"{f'analyses running ({analysed} done)':>28} {busy[0]:9.0f} {busy[1]:10.1f} {busy[2]:8.1f}")


if __name__ == "__main__":
    main()

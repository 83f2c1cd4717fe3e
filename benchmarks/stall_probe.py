"""``kseri serve`` with probes for what stalls it: each full pass of the cycle collector, each
commit and each event-loop delay longer than a threshold is printed to stderr, stamped with
the system's monotonic clock (``time.perf_counter()`` on Linux), the clock
``server.py --trace`` stamps each play with, so a slow play can be put beside what the server
was doing then.

    PYTHONPATH=src python benchmarks/stall_probe.py --port 8765 --db sqlite+aiosqlite:////tmp/b.db \\
        --bot-delay 0 2> stalls.txt &
    PYTHONPATH=src python benchmarks/server.py --url http://127.0.0.1:8765 --trace plays.json

Every option is passed on to ``kseri serve``; ``KSERI_PROBE_MS`` sets the threshold (20 ms).
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
from typing import Any

import uvicorn

from kseri.cli import main
from kseri.server import db

THRESHOLD = float(os.environ.get("KSERI_PROBE_MS", "20")) / 1000


def report(what: str, seconds: float) -> None:
    """One stall: when it ended, what it was and how long it took."""
    print(f"{time.perf_counter():.3f} {what} {seconds * 1000:.1f} ms", file=sys.stderr, flush=True)


def watch_collector() -> None:
    """Report full passes of the cycle collector, and younger ones past the threshold."""
    started = [0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        took = time.perf_counter() - started[0]
        if info["generation"] == 2 or took > THRESHOLD:
            report(f"collector pass (generation {info['generation']}, {info['collected']} freed)", took)

    gc.callbacks.append(callback)


def watch_commits() -> None:
    """Report commits (a batch of plays and their fence checks) past the threshold."""
    commit = db.Store._commit

    async def timed(self: db.Store, batch: db.Batch) -> None:
        started = time.perf_counter()
        try:
            await commit(self, batch)
        finally:
            if time.perf_counter() - started > THRESHOLD:
                report("commit", time.perf_counter() - started)

    db.Store._commit = timed  # type: ignore[method-assign]


def watch_loop() -> None:
    """Report the event loop answering a 10 ms timer late by more than the threshold."""
    serve = uvicorn.Server.serve

    async def lag() -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            late = time.perf_counter() - started - 0.01
            if late > THRESHOLD:
                report("event loop late", late)

    async def probed(self: uvicorn.Server, sockets: Any = None) -> None:
        ticking = asyncio.create_task(lag())
        try:
            await serve(self, sockets)
        finally:
            ticking.cancel()

    uvicorn.Server.serve = probed  # type: ignore[method-assign]


if __name__ == "__main__":
    watch_collector()
    watch_commits()
    watch_loop()
    sys.argv = ["kseri", "serve", *sys.argv[1:]]
    main()

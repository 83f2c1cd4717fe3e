"""The tournaments' live feed under viewers: V WebSocket viewers of one tournament
(``/ws/tournaments/ID``) on the real server on loopback, and K changes (a player joining, then
withdrawing: each a change every viewer is pushed). Prints, per change, how long from the
change's request to the last viewer holding the new data (median and 99th percentile over the
changes), and the page data's size.

    cd benchmarks && PYTHONPATH=../src nice -n 10 python tournament_push.py   # 200 viewers, 10 changes
    cd benchmarks && PYTHONPATH=../src nice -n 10 python tournament_push.py --viewers 1000 --changes 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import websockets
from tournament_load import Entrant, start_server


async def watch(url: str, tid: str, counts: list[int], arrivals: list[float], index: int) -> None:
    """One viewer: its latest entrant count, and when each push arrived."""
    async with websockets.connect(f"{url}/ws/tournaments/{tid}", max_size=None) as socket_:
        while True:
            counts[index] = json.loads(await socket_.recv())["entrants"]
            arrivals.append(time.perf_counter())


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--changes", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder))
        ws_url = url.replace("http://", "ws://")
        try:
            async with httpx.AsyncClient(base_url=url, timeout=60) as one, \
                    httpx.AsyncClient(base_url=url, timeout=60) as two:
                organiser, rival = Entrant("organiser", one), Entrant("rival", two)
                await organiser.sign_up()
                await rival.sign_up()
                created = await organiser.post("/api/tournaments", {"name": "push", "starts_in": 3600})
                tid = created.json()["id"]
                counts = [0] * args.viewers
                arrivals: list[float] = []
                viewers = [asyncio.ensure_future(watch(ws_url, tid, counts, arrivals, i))
                           for i in range(args.viewers)]
                while sum(1 for c in counts if c) < args.viewers:
                    await asyncio.sleep(0.1)
                lags: list[float] = []
                for change in range(args.changes):
                    joining = change % 2 == 0
                    arrivals.clear()
                    began = time.perf_counter()
                    await rival.post(f"/api/tournaments/{tid}/{'join' if joining else 'withdraw'}")
                    answered = time.perf_counter()
                    want = 2 if joining else 1
                    while sum(1 for c in counts if c == want) < args.viewers:
                        await asyncio.sleep(0.005)
                    last = max(arrivals)
                    lags.append(last - began)
                    print(f"change {change + 1} ({'join' if joining else 'withdraw'}): answered in "
                          f"{(answered - began) * 1000:.0f} ms, every viewer had it "
                          f"{(last - began) * 1000:.0f} ms after the request")
                size = len((await one.get(f"/api/tournaments/{tid}")).content)
                lags.sort()
                p99 = lags[int(0.99 * (len(lags) - 1))]
                print(f"{args.viewers} viewers, {args.changes} changes: to the last viewer median "
                      f"{statistics.median(lags) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms; "
                      f"page data {size} bytes")
                for viewer in viewers:
                    viewer.cancel()
        finally:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    asyncio.run(main())

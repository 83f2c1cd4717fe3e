"""The figures of the capacity model (``docs/scaling.md``) for one ``kseri serve`` process:
memory per live table and per connection, and database commits per play under load.

Memory: the server's resident set (``/proc``) after opening ``--tables`` two-player tables,
each dealt and with both players connected, against the empty server; then after as many
spectator connections again (a connection alone). Commits per play: the server's own metrics
(``/metrics``: ``kseri_commit_seconds_count`` over ``kseri_plays_total``) while
``benchmarks/server.py``'s scripted players play ``--load-tables`` tables; group commit makes
it fall below one as tables are added.

    PYTHONPATH=src python benchmarks/capacity.py
    PYTHONPATH=src python benchmarks/capacity.py --tables 1000 --load-tables 20 60 120
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import tempfile
from pathlib import Path

import httpx
import websockets

from server import honest_address, measure, start_server

ADDRESS_LIMITS = "tables_per_minute=1000000,tables_burst=1000000,connections_per_address=1000000"


def resident_mib(pid: int) -> float:
    """A process's resident set size in MiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc")


def metric(url: str, name: str) -> float:
    """One unlabelled sample of the server's ``/metrics``."""
    for line in httpx.get(f"{url}/metrics", timeout=30).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise KeyError(name)


async def settle(pid: int) -> float:
    """The resident set once it stops growing (the server has answered everything)."""
    previous = -1.0
    while True:
        await asyncio.sleep(1.0)
        now = resident_mib(pid)
        if abs(now - previous) < 0.2:
            return now
        previous = now


async def hold_tables(url: str, count: int) -> list[websockets.ClientConnection]:
    """Open ``count`` dealt two-player tables with both seats connected; returns the sockets."""
    sockets: list[websockets.ClientConnection] = []
    async with httpx.AsyncClient(timeout=60) as client:
        for _ in range(count):
            body = {"rules": "greek", "public": False}
            created = (await client.post(f"{url}/api/tables", json=body)).json()
            table_id = created["table"]["id"]
            joined = (await client.post(f"{url}/api/tables/{table_id}/join", json={})).json()
            for token in (created["token"], joined["token"]):
                ws = await websockets.connect(f"{url.replace('http', 'ws', 1)}/ws/tables/{table_id}",
                                              max_size=None, ping_interval=None, compression=None,
                                              local_addr=(honest_address(), 0))
                await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
                await ws.send(json.dumps({"type": "ready"}))
                sockets.append(ws)
    return sockets


async def drain(sockets: list[websockets.ClientConnection]) -> None:
    """Read what the server sent (so no queue holds memory that is not the table's)."""
    async def one(ws: websockets.ClientConnection) -> None:
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 0.5)
        except TimeoutError:
            pass

    await asyncio.gather(*map(one, sockets))


async def spectate(url: str, sockets: list[websockets.ClientConnection]) -> list[websockets.ClientConnection]:
    """One spectator connection for each player connection, on the same tables."""
    watchers = []
    for ws in sockets:
        table_path = ws.request.path if ws.request is not None else ""
        watcher = await websockets.connect(f"{url.replace('http', 'ws', 1)}{table_path}", max_size=None,
                                           ping_interval=None, compression=None,
                                           local_addr=(honest_address(), 0))
        await watcher.send(json.dumps({"type": "hello", "protocol": 1}))
        watchers.append(watcher)
    return watchers


async def memory(url: str, pid: int, tables: int) -> tuple[float, float, float]:
    """The empty server's MiB, then KiB per live table (two players connected), per connection."""
    empty = await settle(pid)
    players = await hold_tables(url, tables)
    await drain(players)
    with_tables = await settle(pid)
    watchers = await spectate(url, players)
    await drain(watchers)
    with_watchers = await settle(pid)
    for ws in players + watchers:
        await ws.close()
    per_table = (with_tables - empty) * 1024 / tables
    per_connection = (with_watchers - with_tables) * 1024 / len(watchers)
    return empty, per_table, per_connection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=500, help="live tables held for the memory figure")
    parser.add_argument("--load-tables", type=int, nargs="+", default=[1, 20, 60],
                        help="concurrent tables for the commits-per-play figure")
    parser.add_argument("--seconds", type=float, default=10, help="length of each loaded run")
    args = parser.parse_args()
    gc.collect()
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder), "--limits", ADDRESS_LIMITS)
        try:
            empty, per_table, per_connection = asyncio.run(memory(url, process.pid, args.tables))
            loads = []
            for tables in args.load_tables:
                plays, commits = metric(url, "kseri_plays_total"), metric(url, "kseri_commit_seconds_count")
                rate, _, p99, cpu, _ = asyncio.run(measure(url, tables, args.seconds, process.pid))
                plays = metric(url, "kseri_plays_total") - plays
                commits = metric(url, "kseri_commit_seconds_count") - commits
                loads.append((tables, rate, p99, cpu, commits / max(1.0, plays)))
        finally:
            process.terminate()
            process.wait(10)
    print("kseri server, SQLite (WAL, synchronous=FULL), one process; client on the same machine")
    print(f"memory: empty server {empty:.0f} MiB; {per_table:.1f} KiB per live table (two players "
          f"connected, {args.tables} tables); {per_connection:.1f} KiB per extra connection")
    print(f"{'tables':>7} {'plays/s':>8} {'p99 ms':>7} {'CPU ms/play':>12} {'commits/play':>13}")
    for tables, rate, p99, cpu, per_play in loads:
        print(f"{tables:7d} {rate:8.0f} {p99:7.1f} {cpu:12.2f} {per_play:13.2f}")


if __name__ == "__main__":
    main()

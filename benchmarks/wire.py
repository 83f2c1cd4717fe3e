"""The lean wire: bytes per play per connection over protocol v1 (a full ``state`` each time)
and v2 (a ``delta`` after the first full state), side by side on the same matches, and the
server's CPU per play with every connection on v1 and then on v2.

Bytes: for each table size (2 players, 2 against 2, 5 players) a started ``kseri serve`` plays
``--matches`` whole matches, one person against bots; a v1 and a v2 connection hold the
person's seat and a v1 and a v2 spectator watch, so both protocols carry the very same plays.
Each message that tells of a play is measured (its UTF-8 bytes): median and 99th percentile per
connection kind. CPU: ``--tables`` such two-player tables at once, the players' and a
spectator's connections all on one protocol, the server's CPU seconds (``/proc``) per play.

    PYTHONPATH=src python benchmarks/wire.py
    PYTHONPATH=src python benchmarks/wire.py --matches 5 --tables 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

import httpx
import websockets

from server import cpu_seconds, start_server

SIZES = {"2 players": "greek", "2 against 2": "partnership", "5 players": "faro"}
Json = dict[str, Any]
LIMITS = ("tables_per_minute=1000000,tables_burst=1000000,connections_per_address=1000000,"
          "http_connections_per_address=1000000")


def percentile(values: list[int], share: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(share * len(ordered)))])


async def follow(url: str, table_id: str, protocol: int, token: str | None, sizes: list[int],
                 play_for: random.Random | None) -> int:
    """Follow a table to its match's end over ``protocol``, recording the bytes of every
    message that tells of a play; plays for the seat when ``play_for`` is given. Returns
    the plays told."""
    ws = url.replace("http", "ws") + f"/ws/tables/{table_id}"
    plays = 0
    async with websockets.connect(ws, max_size=None, ping_interval=None) as socket:
        await socket.send(json.dumps({"type": "hello", "protocol": protocol, "token": token}))
        view: Json | None = None
        status = ""
        readied: set[int] = set()
        played: set[tuple[int, int]] = set()
        while True:
            text = await asyncio.wait_for(socket.recv(), 120)
            assert isinstance(text, str)
            message = json.loads(text)
            kind = message["type"]
            if kind not in ("state", "delta"):
                continue
            event = message["event"]
            if event is not None and event["kind"] == "play":
                sizes.append(len(text.encode()))
                plays += 1
            if event is not None and event["kind"] == "match-end":
                return plays
            if play_for is None:
                continue
            if kind == "state":
                view, status = message["view"], message["table"]["status"]
            else:
                changes = message["changes"]
                if "view" in changes:
                    view = apply_part(view, changes["view"])
                if "table" in changes and "status" in changes["table"].get("set", {}):
                    status = changes["table"]["set"]["status"]
            await act(socket, message["seq"], view, status, readied, played, play_for)


def apply_part(part: Json | None, change: Json) -> Json | None:
    """One part of a state with its change applied (``kseri.server.delta.apply``'s rule)."""
    if "replace" in change:
        replaced: Json | None = change["replace"]
        return replaced
    assert part is not None
    result: Json = part | change.get("set", {})
    for key, items in change.get("add", {}).items():
        result[key] = result[key] + items
    return result


async def act(socket: websockets.ClientConnection, seq: int, view: Json | None, status: str,
              readied: set[int], played: set[tuple[int, int]], rng: random.Random) -> None:
    """Get ready between rounds; play a random card on the seat's turn."""
    if status == "finished":
        return
    if view is None or view["phase"] == "round-over":
        round_index = -1 if view is None else view["round"]
        if round_index not in readied:
            readied.add(round_index)
            await socket.send(json.dumps({"type": "ready"}))
    elif view["turn"] == view["seat"]:
        key = (view["round"], len(view["plays"]))
        if key not in played:
            played.add(key)
            await socket.send(json.dumps({"type": "play", "card": rng.choice(view["hand"]), "seq": seq}))


def seats(rules: str, players: int) -> list[dict[str, str]]:
    return [{"kind": "human"}] + [{"kind": "bot", "level": "greedy"}] * (players - 1)


async def bytes_per_play(url: str, matches: int) -> None:
    """Print the bytes per play per connection, v1 and v2, for each table size."""
    async with httpx.AsyncClient(timeout=30) as client:
        rules = (await client.get(f"{url}/api/rules")).json()["presets"]
        print(f"bytes per play per connection ({matches} whole matches each): median / p99")
        print(f"{'table':<12} {'connection':<10} {'v1':>15} {'v2':>15} {'v2/v1':>7}")
        for size, preset in SIZES.items():
            found: dict[tuple[str, int], list[int]] = {}
            for match in range(matches):
                players = rules[preset]["players"]
                created = (await client.post(f"{url}/api/tables", json={
                    "rules": preset, "seats": seats(preset, players), "public": False})).json()
                table_id, token = created["table"]["id"], created["token"]
                rng = random.Random(match)
                runs = [(who, protocol, token if who == "player" else None) for who in ("player", "spectator")
                        for protocol in (1, 2)]
                lists = [found.setdefault((who, protocol), []) for who, protocol, _ in runs]
                followers = [follow(url, table_id, protocol, seat_token, sizes,
                                    rng if (who, protocol) == ("player", 1) else None)
                             for (who, protocol, seat_token), sizes in zip(runs, lists, strict=True)]
                await asyncio.gather(*followers)
            for who in ("player", "spectator"):
                v1, v2 = found[(who, 1)], found[(who, 2)]
                print(f"{size:<12} {who:<10} {statistics.median(v1):>7.0f} / {percentile(v1, .99):>5.0f} "
                      f"{statistics.median(v2):>7.0f} / {percentile(v2, .99):>5.0f} "
                      f"{statistics.median(v2) / statistics.median(v1):>7.3f}")


async def cpu_per_play(url: str, pid: int, tables: int, protocol: int) -> tuple[float, int]:
    """The server's CPU ms per play with ``tables`` two-player tables, every connection on
    ``protocol``, played to their ends at once; and the plays."""
    async with httpx.AsyncClient(timeout=30) as client:
        created = [(await client.post(f"{url}/api/tables", json={
            "rules": "greek", "seats": seats("greek", 2), "public": False})).json() for _ in range(tables)]
    before = cpu_seconds(pid)
    counts = await asyncio.gather(*(asyncio.gather(
        follow(url, c["table"]["id"], protocol, c["token"], [], random.Random(index)),
        follow(url, c["table"]["id"], protocol, None, [], None)) for index, c in enumerate(created)))
    plays = sum(player for player, _ in counts)
    return (cpu_seconds(pid) - before) * 1000 / max(1, plays), plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=3, help="whole matches per table size for the bytes")
    parser.add_argument("--tables", type=int, default=10, help="tables at once for the CPU figure")
    parser.add_argument("--rounds", type=int, default=3, help="alternated v1/v2 CPU runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder), "--limits", LIMITS)
        try:
            asyncio.run(bytes_per_play(url, args.matches))
            print(f"\nserver CPU per play, {args.tables} two-player tables at once (a player and a spectator "
                  "each), alternated runs:")
            figures: dict[int, list[float]] = {1: [], 2: []}
            for _ in range(args.rounds):
                for protocol in (1, 2):
                    ms, plays = asyncio.run(cpu_per_play(url, process.pid, args.tables, protocol))
                    figures[protocol].append(ms)
                    print(f"  v{protocol}: {ms:.3f} ms per play ({plays} plays)")
            v1, v2 = statistics.median(figures[1]), statistics.median(figures[2])
            print(f"median: v1 {v1:.3f} ms, v2 {v2:.3f} ms per play (v2/v1 {v2 / v1:.2f})")
        finally:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    main()

"""Tournament load: N signed-in players in one Swiss over the real server on loopback, each a
WebSocket client that plays the first card of its hand at every table it is sent to.

Prints, per round: how long pairing took as the players saw it (from the previous round's last
table finishing to the last player's table of this round showing in the tournament's page data,
which counts the driver's tick, 0.5 s, and the players' polls, every ``--poll`` seconds), the
round's length, its plays, plays per second and a play's round trip (median, 99th percentile);
and the cost of the page data (``GET /api/tournaments/ID``: the standings recomputed from the
stored games), median and 99th percentile, at the start and at the end; beside a baseline run
of the same number of tables opened without a tournament (``--baseline``).

    PYTHONPATH=src python benchmarks/tournament_load.py                       # 16 players, 3 rounds
    PYTHONPATH=src python benchmarks/tournament_load.py --players 64 --rounds 4
    PYTHONPATH=src python benchmarks/tournament_load.py --players 16 --baseline
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets

RULES = "greek,target=1,target_rule=higher-wins"
"""One round a match (a quick table)."""
PASSWORD = "correct horse battery"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``kseri serve`` on a fresh SQLite file; its process and URL once it answers."""
    port = free_port()
    limits = ("tables_per_minute=100000,tables_burst=100000,connections_per_address=100000,"
              "http_connections_per_address=100000,signups_per_hour=100000")
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "kseri", "serve", "--port", str(port), "--db",
         f"sqlite+aiosqlite:///{folder / 'kseri.db'}", "--bot-delay", "0", "--limits", limits],
        stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited: {(folder / 'server.log').read_text()[-2000:]}")
        try:
            if httpx.get(url + "/api/rules", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start within 60 s")


@dataclass
class Entrant:
    """One player: a cookie jar and its session's CSRF token."""

    name: str
    http: httpx.AsyncClient
    csrf: str = ""
    latencies: list[float] = field(default_factory=list)
    tables: dict[int, tuple[float, float, int]] = field(default_factory=dict)
    """Per round: when its table showed, when it finished, the plays this player made."""

    async def sign_up(self) -> None:
        body = {"username": self.name, "password": PASSWORD, "seats": []}
        answer = await self.http.post("/api/account/signup", json=body)
        answer.raise_for_status()
        self.csrf = answer.json()["csrf"]

    async def post(self, path: str, body: dict[str, object] | None = None) -> httpx.Response:
        answer = await self.http.post(path, json=body or {}, headers={"X-CSRF-Token": self.csrf})
        answer.raise_for_status()
        return answer


async def play_table(entrant: Entrant, ws_url: str, table_id: str) -> int:
    """Play a table to its end (the first card of the hand on each turn); the plays made."""
    cookie = entrant.http.cookies.get("kseri_session")
    plays = 0
    sent = 0.0
    async with websockets.connect(f"{ws_url}/ws/tables/{table_id}", max_size=None,
                                  additional_headers={"Cookie": f"kseri_session={cookie}"}) as socket_:
        await socket_.send(json.dumps({"type": "hello", "protocol": 1, "token": None}))
        seat = None
        readied: set[int] = set()
        while True:
            message = json.loads(await socket_.recv())
            if message["type"] == "welcome":
                seat = message["seat"]
                continue
            if message["type"] != "state":
                continue
            event = message["event"]
            if sent and event and event["kind"] == "play" and event["seat"] == seat:
                entrant.latencies.append(time.perf_counter() - sent)
                sent = 0.0
            if message["table"]["status"] == "finished":
                return plays
            view = message["view"]
            if view is None or view["phase"] == "round-over":
                index = message["fairness"]["round"]
                if index not in readied:
                    readied.add(index)
                    await socket_.send(json.dumps({"type": "ready"}))
            elif view["turn"] == seat and not sent:
                sent = time.perf_counter()
                plays += 1
                await socket_.send(json.dumps({"type": "play", "card": view["hand"][0],
                                               "seq": message["seq"]}))


async def play_tournament(entrant: Entrant, ws_url: str, tournament_id: str, poll: float,
                          page_costs: list[float]) -> None:
    """Play each round's table as it comes, until the tournament is over."""
    played: set[str] = set()
    while True:
        began = time.perf_counter()
        try:
            data = (await entrant.http.get(f"/api/tournaments/{tournament_id}")).json()
        except httpx.TransportError:  # a kept-alive connection the server closed as it was reused
            continue
        page_costs.append(time.perf_counter() - began)
        if data["status"] == "finished":
            return
        table = data["my_table"]
        if table and table not in played:
            played.add(table)
            seen = time.perf_counter()
            plays = await play_table(entrant, ws_url, table)
            entrant.tables[data["round"]] = (seen, time.perf_counter(), plays)
        else:
            await asyncio.sleep(poll)


async def baseline(url: str, tables: int) -> tuple[float, list[float], int]:
    """The same number of tables as a round, opened directly (no tournament): two scripted
    players per table; the wall time, the round trips, the plays."""
    ws_url = url.replace("http", "ws", 1)
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        created = []
        for _ in range(tables):
            answer = await http.post("/api/tables", json={"rules": RULES, "public": False, "casual": False,
                                                           "seats": [{"kind": "human", "name": "A"},
                                                                     {"kind": "human"}]})
            answer.raise_for_status()
            created.append(answer.json())
    latencies: list[float] = []

    async def seat(table_id: str, token: str) -> int:
        plays, sent = 0, 0.0
        async with websockets.connect(f"{ws_url}/ws/tables/{table_id}", max_size=None) as socket_:
            await socket_.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
            me = None
            readied: set[int] = set()
            while True:
                message = json.loads(await socket_.recv())
                if message["type"] == "welcome":
                    me = message["seat"]
                    continue
                if message["type"] != "state":
                    continue
                event = message["event"]
                if sent and event and event["kind"] == "play" and event["seat"] == me:
                    latencies.append(time.perf_counter() - sent)
                    sent = 0.0
                if message["table"]["status"] == "finished":
                    return plays
                view = message["view"]
                if view is None or view["phase"] == "round-over":
                    if message["fairness"]["round"] not in readied:
                        readied.add(message["fairness"]["round"])
                        await socket_.send(json.dumps({"type": "ready"}))
                elif view["turn"] == me and not sent:
                    sent, plays = time.perf_counter(), plays + 1
                    await socket_.send(json.dumps({"type": "play", "card": view["hand"][0],
                                                   "seq": message["seq"]}))

    began = time.perf_counter()
    jobs = []
    for table in created:
        table_id = table["table"]["id"]
        jobs.append(seat(table_id, table["token"]))
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            joined = (await http.post(f"/api/tables/{table_id}/join", json={"seat": 1})).json()
        jobs.append(seat(table_id, joined["token"]))
    plays = sum(await asyncio.gather(*jobs))
    return time.perf_counter() - began, latencies, plays


def quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return f"{statistics.median(ordered) * 1000:7.1f} ms / {p99 * 1000:7.1f} ms"


async def main(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="kseri-tournament-load-"))
    process, url = start_server(folder)
    ws_url = url.replace("http", "ws", 1)
    try:
        entrants = [Entrant(f"load{i:04d}", httpx.AsyncClient(base_url=url, timeout=120))
                    for i in range(args.players)]
        began = time.perf_counter()
        gate = asyncio.Semaphore(4)

        async def sign_up(entrant: Entrant) -> None:
            async with gate:
                await entrant.sign_up()

        await asyncio.gather(*(sign_up(e) for e in entrants))
        print(f"{args.players} accounts signed up in {time.perf_counter() - began:.1f} s")
        created = (await entrants[0].post("/api/tournaments", {
            "name": "load", "rules": RULES, "rounds": args.rounds, "starts_in": 3600})).json()
        tid = created["id"]
        began = time.perf_counter()
        for entrant in entrants[1:]:
            await entrant.post(f"/api/tournaments/{tid}/join")
        print(f"{args.players - 1} joins in {time.perf_counter() - began:.2f} s")
        start_costs: list[float] = []
        for _ in range(20):
            t0 = time.perf_counter()
            await entrants[0].http.get(f"/api/tournaments/{tid}")
            start_costs.append(time.perf_counter() - t0)
        page_costs: list[float] = []
        started = time.perf_counter()
        await entrants[0].post(f"/api/tournaments/{tid}/start")
        await asyncio.gather(*(play_tournament(e, ws_url, tid, args.poll, page_costs) for e in entrants))
        total = time.perf_counter() - started
        end_costs: list[float] = []
        for _ in range(20):
            t0 = time.perf_counter()
            await entrants[0].http.get(f"/api/tournaments/{tid}")
            end_costs.append(time.perf_counter() - t0)
        print(f"\n{args.players} players, {args.rounds} rounds of {RULES!r}: {total:.1f} s in all\n")
        print(f"{'round':>5} {'pairing':>9} {'length':>8} {'plays':>6} {'plays/s':>8}")
        previous_end = started
        all_plays = 0
        for number in range(1, args.rounds + 1):
            tables = [e.tables[number] for e in entrants if number in e.tables]
            if not tables:
                continue
            shown = max(t[0] for t in tables)
            end = max(t[1] for t in tables)
            plays = sum(t[2] for t in tables)
            all_plays += plays
            length = end - min(t[0] for t in tables)
            print(f"{number:>5} {shown - previous_end:>8.2f}s {length:>7.2f}s {plays:>6} "
                  f"{plays / length:>8.0f}")
            previous_end = end
        print(f"\nall: {all_plays} plays, {all_plays / total:.0f} plays/s over the whole tournament; "
              f"round trip median / p99 {quantiles([lat for e in entrants for lat in e.latencies])}")
        print(f"page data (GET /api/tournaments/ID) median / p99: before the start {quantiles(start_costs)}, "
              f"after the end {quantiles(end_costs)}, while playing {quantiles(page_costs)}")
        if args.baseline:
            wall, latencies, plays = await baseline(url, args.players // 2)
            print(f"\nbaseline: {args.players // 2} tables opened without a tournament: {wall:.2f} s, "
                  f"{plays} plays, {plays / wall:.0f} plays/s, "
                  f"round trip median / p99 {quantiles(latencies)}")
        for entrant in entrants:
            await entrant.http.aclose()
    finally:
        process.terminate()
        process.wait(20)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--poll", type=float, default=0.5, help="seconds between a waiting player's looks")
    parser.add_argument("--baseline", action="store_true", help="also a round's tables without a tournament")
    asyncio.run(main(parser.parse_args()))

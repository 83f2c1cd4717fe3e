"""Tournament load: N signed-in players in one Swiss over the real server on loopback, each a
client that follows the tournament live on its WebSocket (``/ws/tournaments/ID``, no polling)
and plays the first card of its hand at every table it is sent to.

Prints, per round: the pairing itself (``bench/swiss.pair_round`` over the round's field and
the results before it, timed here as the driver runs it), how long pairing took as the players
saw it (from the previous round's last table finishing to the last player holding its table of
this round, pushed: the driver's tick, 0.5 s, the pairing, the tables opened and the push), the
round's length, its plays, plays per second and a play's round trip (median, 99th percentile);
the standings' broadcast: the pushes each viewer got, the page data's size and the bytes pushed
to all, and the cost of working the page data out (``GET /api/tournaments/ID`` at the end);
with ``--honest K``: K ordinary tables (not in the tournament) played table after table while
the tournament runs, their plays per second and round trip, beside the same K tables played as
long again once it is over (no tournament).

Accounts: the first entrant signs up over HTTP; the others (``--direct-accounts``, the default
beyond 64 players) are written into the server's database beside it with that account's
password hash and a session each (real rows; signing up 1,000 accounts over HTTP costs about
12 minutes of Argon2 on the shared machine, which measures nothing of the tournament).

    PYTHONPATH=src python benchmarks/tournament_load.py                       # 16 players, 3 rounds
    PYTHONPATH=src python benchmarks/tournament_load.py --players 64 --rounds 4
    PYTHONPATH=src python benchmarks/tournament_load.py --players 1000 --rounds 2 --honest 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from kseri.bench import swiss
from kseri.server.accounts import token_digest, username_key

RULES = "greek,target=1,target_rule=higher-wins"
"""One round a match (a quick table)."""
PASSWORD = "correct horse battery"
STATUS, ROUND = re.compile(r'"status": "(\w+)"'), re.compile(r'"round": (\d+)')


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
    pushes: list[tuple[float, int, int]] = field(default_factory=list)
    """Each push of the page data: when, its size in bytes, the round then under way."""

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
    async with websockets.connect(f"{ws_url}/ws/tables/{table_id}",
                                  max_size=None, open_timeout=None, ping_interval=None,
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


def glance(text: str) -> dict[str, object]:
    """What a player needs of a push (the tournament's status and round, the viewer's table),
    read without decoding the whole page data: 1,000 clients decoding every push of a large
    field's standings in this one process would measure the clients, not the server. The
    page data starts with the tournament's summary and ends with the viewer's own part."""
    if text.startswith('{"error"'):
        return {"error": True}
    status, number = STATUS.search(text, 0, 4000), ROUND.search(text, 0, 4000)
    mine = json.loads("{" + text[text.rindex('"joined"'):])
    return {"status": status and status.group(1), "round": int(number.group(1)) if number else 0,
            "my_table": mine["my_table"]}


async def play_tournament(entrant: Entrant, ws_url: str, tournament_id: str) -> None:
    """Follow the tournament on its WebSocket and play each round's table as it comes, until the
    tournament is over."""
    cookie = entrant.http.cookies.get("kseri_session")
    played: set[str] = set()
    latest: dict[str, object] = {}
    fresh = asyncio.Event()

    async def follow(socket_: websockets.ClientConnection) -> None:
        async for text in socket_:
            data = glance(str(text))
            number = data.get("round")
            entrant.pushes.append((time.perf_counter(), len(text), number if isinstance(number, int) else 0))
            latest.clear()
            latest.update(data)
            fresh.set()

    async with websockets.connect(f"{ws_url}/ws/tournaments/{tournament_id}",
                                  max_size=None, open_timeout=None, ping_interval=None,
                                  additional_headers={"Cookie": f"kseri_session={cookie}"}) as socket_:
        reader = asyncio.create_task(follow(socket_))
        try:
            while True:
                await fresh.wait()
                fresh.clear()
                if latest.get("status") == "finished" or "error" in latest:
                    return
                table, number = latest.get("my_table"), latest.get("round")
                if isinstance(table, str) and table not in played and isinstance(number, int):
                    played.add(table)
                    seen = time.perf_counter()
                    plays = await play_table(entrant, ws_url, table)
                    entrant.tables[number] = (seen, time.perf_counter(), plays)
                    fresh.set()  # look again at the latest push (the next round may be there)
        finally:
            reader.cancel()


async def honest(url: str, tables: int, over: asyncio.Event) -> tuple[float, list[float], int]:
    """``tables`` ordinary tables (no tournament), each played by two scripted players table
    after table until ``over`` is set; the wall time, the round trips, the plays."""
    latencies: list[float] = []
    began = time.perf_counter()

    async def pair() -> int:
        plays = 0
        while not over.is_set():
            _, found, made = await baseline(url, 1)
            latencies.extend(found)
            plays += made
        return plays

    plays = sum(await asyncio.gather(*(pair() for _ in range(tables))))
    return time.perf_counter() - began, latencies, plays


async def baseline(url: str, tables: int) -> tuple[float, list[float], int]:
    """Tables opened directly (no tournament): two scripted players per table; the wall time,
    the round trips, the plays."""
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


def direct_accounts(database: Path, first: Entrant, others: list[Entrant], url: str) -> None:
    """Write the other entrants' accounts and sessions into the server's database (the first
    entrant's password hash for each: the same password), and give each its session cookie."""
    with sqlite3.connect(database, timeout=60) as connection:
        digest = connection.execute("SELECT password_hash FROM users WHERE username = ?",
                                    (first.name,)).fetchone()[0]
        now = time.time()
        for entrant in others:
            user_id, token, entrant.csrf = secrets.token_urlsafe(12), secrets.token_urlsafe(32), \
                secrets.token_urlsafe(24)
            connection.execute("INSERT INTO users (id, username, username_key, password_hash, created) "
                               "VALUES (?, ?, ?, ?, ?)", (user_id, entrant.name, username_key(entrant.name),
                                                          digest, now))
            connection.execute("INSERT INTO sessions (token_hash, user_id, csrf, created, expires) "
                               "VALUES (?, ?, ?, ?, ?)", (token_digest(token), user_id, entrant.csrf, now,
                                                          now + 86400))
            entrant.http.cookies.set("kseri_session", token, domain="127.0.0.1")


def pairing_times(data: dict[str, Any]) -> list[float]:
    """Each round's pairing (``swiss.pair_round``) timed again here, over that round's field
    and the stored results before it, as the driver ran it (seconds)."""
    names = [str(p["username"]) for p in data["players"]]
    times: list[float] = []
    played: list[swiss.Game] = []
    for rnd in data["pairings"]:
        began = time.perf_counter()
        swiss.pair_round(names, played, str(data["id"]))
        times.append(time.perf_counter() - began)
        for g in rnd["games"]:
            played.append(swiss.Game(g["first"], g["second"], g["score"] or 0.0))
    return times


async def main(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="kseri-tournament-load-"))
    process, url = start_server(folder)
    ws_url = url.replace("http", "ws", 1)
    try:
        entrants = [Entrant(f"load{i:04d}", httpx.AsyncClient(base_url=url, timeout=120))
                    for i in range(args.players)]
        began = time.perf_counter()
        direct = args.direct_accounts if args.direct_accounts is not None else args.players > 64
        if direct:
            await entrants[0].sign_up()
            await asyncio.to_thread(direct_accounts, folder / "kseri.db", entrants[0], entrants[1:], url)
        else:
            gate = asyncio.Semaphore(4)

            async def sign_up(entrant: Entrant) -> None:
                async with gate:
                    await entrant.sign_up()

            await asyncio.gather(*(sign_up(e) for e in entrants))
        print(f"{args.players} accounts {'written' if direct else 'signed up'} in "
              f"{time.perf_counter() - began:.1f} s")
        created = (await entrants[0].post("/api/tournaments", {
            "name": "load", "rules": RULES, "rounds": args.rounds, "starts_in": 3600})).json()
        tid = created["id"]
        began = time.perf_counter()
        for entrant in entrants[1:]:
            await entrant.post(f"/api/tournaments/{tid}/join")
        print(f"{args.players - 1} joins in {time.perf_counter() - began:.2f} s")
        over = asyncio.Event()
        beside = asyncio.create_task(honest(url, args.honest, over)) if args.honest else None
        started = time.perf_counter()
        await entrants[0].post(f"/api/tournaments/{tid}/start")
        await asyncio.gather(*(play_tournament(e, ws_url, tid) for e in entrants))
        total = time.perf_counter() - started
        over.set()
        during = await beside if beside is not None else None
        end_costs: list[float] = []
        data: dict[str, Any] = {}
        for _ in range(20):
            t0 = time.perf_counter()
            data = (await entrants[0].http.get(f"/api/tournaments/{tid}")).json()
            end_costs.append(time.perf_counter() - t0)
        print(f"\n{args.players} players, {args.rounds} rounds of {RULES!r}: {total:.1f} s in all\n")
        pure = pairing_times(data)
        print(f"{'round':>5} {'pair_round':>10} {'pairing seen':>12} {'length':>8} {'plays':>6} "
              f"{'plays/s':>8}")
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
            print(f"{number:>5} {pure[number - 1] * 1000:>8.0f}ms {shown - previous_end:>11.2f}s "
                  f"{length:>7.2f}s {plays:>6} {plays / length:>8.0f}")
            previous_end = end
        print(f"\nall: {all_plays} plays, {all_plays / total:.0f} plays/s over the whole tournament; "
              f"round trip median / p99 {quantiles([lat for e in entrants for lat in e.latencies])}")
        pushes = [len(e.pushes) for e in entrants]
        sizes = [size for e in entrants for _, size, _ in e.pushes]
        print(f"standings pushed live: {statistics.median(pushes):.0f} pushes per viewer (median; "
              f"{min(pushes)}–{max(pushes)}), page data {statistics.median(sizes) / 1000:.0f} kB (median; "
              f"largest {max(sizes) / 1000:.0f} kB), {sum(sizes) / 1e6:.0f} MB pushed to {len(entrants)} "
              f"viewers "
              f"({sum(sizes) / 1e6 / total:.1f} MB/s)")
        print(f"page data (GET /api/tournaments/ID) after the end, median / p99: {quantiles(end_costs)}")
        if during is not None:
            wall, latencies, plays = during
            print(f"\nhonest tables beside the tournament: {args.honest} at once, {wall:.1f} s, "
                  f"{plays} plays, "
                  f"{plays / wall:.0f} plays/s, round trip median / p99 {quantiles(latencies)}")
            alone = asyncio.Event()
            asyncio.get_running_loop().call_later(min(wall, args.alone_for), alone.set)
            wall, latencies, plays = await honest(url, args.honest, alone)
            print(f"the same without a tournament:     {args.honest} at once, {wall:.1f} s, {plays} plays, "
                  f"{plays / wall:.0f} plays/s, round trip median / p99 {quantiles(latencies)}")
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
    parser.add_argument("--honest", type=int, default=0,
                        help="ordinary tables played beside the tournament, then as long again alone")
    parser.add_argument("--alone-for", type=float, default=120.0,
                        help="the most seconds the honest tables play alone afterwards")
    parser.add_argument("--direct-accounts", action=argparse.BooleanOptionalAction, default=None,
                        help="write the accounts into the database (default: beyond 64 players)")
    asyncio.run(main(parser.parse_args()))

"""Game server load: many concurrent tables of scripted players on loopback, every play
committed to SQLite (WAL, synchronous=FULL) before anyone hears of it.

Prints plays per second and a play's round trip (from sending ``play`` to receiving the
state that shows it): median and 99th percentile, for one table alone (the baseline) and for
the loaded server, side by side; and the server process's CPU time per play (user and system,
from /proc, when the script starts the server itself), the figure that holds when the machine
is shared and the round trips wander, beside this load generator's own (on one machine the
two share the cores, and the round trips count the load generator's waits too).

    PYTHONPATH=src python benchmarks/server.py                 # 60 tables, 20 s
    PYTHONPATH=src python benchmarks/server.py --tables 100 --seconds 30
    PYTHONPATH=src python benchmarks/server.py --url http://127.0.0.1:8000   # a running server
    PYTHONPATH=src python benchmarks/server.py --attack        # also under attack (attack.py)
    PYTHONPATH=src python benchmarks/server.py --attack --descriptors 1024   # a default limit
    PYTHONPATH=src python benchmarks/server.py --trace plays.json   # each play's send time, round trip
    PYTHONPATH=src python benchmarks/server.py --protocol 1 2 --rounds 3   # v1 and v2, alternated

With ``--protocol 1 2`` the players speak protocol v1 (a full ``state`` after each play) and v2
(a ``delta``) in alternated runs of the same server, and the medians of each are printed side
by side.

Honest players connect from 127.0.0.2 and the attackers from other loopback addresses, so the
server's per-address limits meet the attackers alone, as they would on a real network.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import websockets
from attack import attack

_honest = itertools.count(0)

CERTIFICATES = ssl.create_default_context()
"""One TLS context for every client: httpx loads the certificate bundle for each new client
otherwise (25 to 60 ms), a pause of the load generator's event loop at every new match that
the round trips in flight would count as the server's."""


def honest_address() -> str:
    """A fresh loopback address for an honest player's match (127.0.1.1, 127.0.1.2, ...): like
    people on a real network, no two matches share the server's per-address allowances."""
    number = next(_honest)
    return f"127.0.{1 + number // 250 % 200}.{1 + number % 250}"


class SeenEvent(msgspec.Struct):
    """What a player reads of a state message's event."""

    kind: str
    seat: int | None = None


class SeenTable(msgspec.Struct):
    status: str


class SeenView(msgspec.Struct):
    phase: str
    turn: int | None
    hand: list[str]


class SeenFairness(msgspec.Struct):
    round: int


class Seen(msgspec.Struct):
    """The few fields of a server message a scripted player reads; msgspec skips the rest of
    the 7 to 13 KB without building it (a whole parse and free with orjson was most of this
    load generator's time, 0.45 ms a play against 0.17, on the cores it shares with the server).
    A v2 ``delta`` (a few hundred bytes) has its ``changes`` instead."""

    type: str
    seq: int = 0
    seat: int | None = None
    event: SeenEvent | None = None
    table: SeenTable | None = None
    view: SeenView | None = None
    fairness: SeenFairness | None = None
    changes: dict[str, dict[str, Any]] | None = None
    code: str | None = None


read_message = msgspec.json.Decoder(Seen).decode


class Held:
    """What a v2 player holds of its table's state, kept by applying each delta's changes to
    the few fields it reads (``kseri.server.delta.apply``'s rule)."""

    def __init__(self) -> None:
        self.table: SeenTable | None = None
        self.view: SeenView | None = None
        self.fairness: SeenFairness | None = None

    def take(self, message: Seen) -> None:
        """Hold a full state, or apply a delta."""
        if message.type == "state":
            self.table, self.view, self.fairness = message.table, message.view, message.fairness
            return
        changes = message.changes or {}
        if "table" in changes:
            self.table = SeenTable(self._field(changes["table"], "status", self.table))
        if "fairness" in changes:
            self.fairness = SeenFairness(self._field(changes["fairness"], "round", self.fairness))
        if "view" in changes:
            change, view = changes["view"], self.view
            if "replace" in change:
                new = change["replace"]
                self.view = None if new is None else SeenView(new["phase"], new["turn"], new["hand"])
            elif view is not None:
                values, grown = change.get("set", {}), change.get("add", {})
                hand = values.get("hand", view.hand) + grown.get("hand", [])
                self.view = SeenView(values.get("phase", view.phase), values.get("turn", view.turn), hand)

    @staticmethod
    def _field(change: dict[str, Any], name: str, held: Any) -> Any:
        if "replace" in change:
            return change["replace"][name]
        return change.get("set", {}).get(name, getattr(held, name))


@dataclass
class Stats:
    """Round trips of acknowledged plays, in seconds."""

    latencies: list[float] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)
    """When each play was sent (``time.perf_counter()``: the system's monotonic clock on Linux,
    the one ``stall_probe.py`` stamps the server's stalls with)."""

    def summary(self, elapsed: float) -> tuple[float, float, float]:
        """Plays per second, median and 99th percentile round trip in milliseconds."""
        ordered = sorted(self.latencies)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else float("nan")
        median = statistics.median(ordered) if ordered else float("nan")
        return len(ordered) / elapsed, median * 1000, p99 * 1000


async def player(url: str, table_id: str, token: str, stats: Stats, stop: float, source: str,
                 protocol: int = 1) -> bool:
    """Play a seat as fast as the table allows, over ``protocol``; True when the match ended
    before ``stop`` (at ``stop`` it leaves, even while waiting: its partner may have left
    already, and the server would play that seat only after its grace period)."""
    try:
        async with asyncio.timeout(max(0.0, stop - time.perf_counter())):
            return await _play_seat(url, table_id, token, stats, source, protocol)
    except TimeoutError:
        return False


async def _play_seat(url: str, table_id: str, token: str, stats: Stats, source: str, protocol: int) -> bool:
    address = f"{url.replace('http', 'ws', 1)}/ws/tables/{table_id}"
    async with websockets.connect(address, max_size=None, ping_interval=None, compression=None,
                                  local_addr=(source, 0)) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": protocol, "token": token}))
        seat = None
        sent_at = 0.0
        readied = -1
        held = Held()
        async for text in ws:
            message = read_message(text)
            if message.type == "welcome":
                seat = message.seat
                continue
            if message.type == "error":
                raise RuntimeError(f"the server refused a play: {text!r}")
            if message.type not in ("state", "delta"):
                continue
            held.take(message)
            if held.table is None or held.fairness is None:
                continue
            event = message.event
            if sent_at and event and event.kind == "play" and event.seat == seat:
                stats.latencies.append(time.perf_counter() - sent_at)
                stats.sent.append(sent_at)
                sent_at = 0.0
            if held.table.status == "finished":
                return True
            view = held.view
            if view is None or view.phase == "round-over":
                if held.fairness.round != readied:
                    readied = held.fairness.round
                    await ws.send(json.dumps({"type": "ready"}))
            elif view.turn == seat and not sent_at:
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "play", "card": view.hand[0], "seq": message.seq}))
    return False


async def table_loop(url: str, stats: Stats, stop: float, protocol: int = 1) -> None:
    """Play two-player matches one after another until ``stop``, each from its own address,
    its players speaking ``protocol``."""
    while time.perf_counter() < stop:
        address = honest_address()
        transport = httpx.AsyncHTTPTransport(local_address=address, verify=CERTIFICATES)
        async with httpx.AsyncClient(timeout=30, transport=transport) as client:
            answer = await client.post(f"{url}/api/tables", json={"rules": "greek", "public": False})
            created = answer.json()
            table_id = created["table"]["id"]
            joined = (await client.post(f"{url}/api/tables/{table_id}/join", json={})).json()
        await asyncio.gather(player(url, table_id, created["token"], stats, stop, address, protocol),
                             player(url, table_id, joined["token"], stats, stop, address, protocol))


def cpu_seconds(pid: int | None) -> float:
    """User and system CPU seconds a process has used so far (Linux; NaN elsewhere or unknown)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(url: str, tables: int, seconds: float, pid: int | None = None,
                  stats: Stats | None = None, protocol: int = 1) -> tuple[float, float, float, float, float]:
    """Plays per second, median and p99 round trip (ms), and the server's and this load
    generator's CPU ms per play (each play recorded in ``stats`` when given), the players
    speaking ``protocol``."""
    stats = Stats() if stats is None else stats
    start = time.perf_counter()
    cpu, own = cpu_seconds(pid), time.process_time()
    stop = start + seconds
    await asyncio.gather(*(table_loop(url, stats, stop, protocol) for _ in range(tables)))
    plays = max(1, len(stats.latencies))
    cpu, own = cpu_seconds(pid) - cpu, time.process_time() - own
    return (*stats.summary(time.perf_counter() - start), cpu * 1000 / plays, own * 1000 / plays)


async def measure_under_attack(url: str, tables: int,
                               seconds: float) -> tuple[tuple[float, float, float, float, float], str]:
    """The honest figures while every attacker of ``attack.py`` runs; and what they did."""
    async with httpx.AsyncClient(timeout=30) as client:
        bots = {"kind": "bot", "level": "greedy"}
        answer = await client.post(f"{url}/api/tables", json={"seats": [bots, bots], "public": False})
    long_table = answer.json()["table"]["id"]
    honest, seen = await asyncio.gather(measure(url, tables, seconds), attack(url, seconds, long_table))
    return honest, ", ".join(f"{name} {count}" for name, count in sorted(seen.items()))


def start_server(folder: Path, *options: str,
                 descriptors: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """A ``kseri serve`` on a free loopback port and an SQLite file in ``folder`` (``options``:
    more command-line options; ``descriptors``: its limit on open descriptors, soft and hard);
    returns the process and its address."""

    def limit() -> None:
        import resource

        if descriptors is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "kseri", "serve", "--port", str(port), "--bot-delay", "0",
         "--db", f"sqlite+aiosqlite:///{folder / 'bench.db'}", *options],
        env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limit)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/rules", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start within 30 s")


def main() -> None:
    # the load generator's own cycle collector is off: its passes over the 120 players' latest
    # messages took 10 to 15 ms each, pauses the round trips in flight would count as the server's
    gc.disable()
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=60, help="concurrent tables (two players each)")
    parser.add_argument("--seconds", type=float, default=20, help="length of the loaded run")
    parser.add_argument("--url", help="a running server to load instead of starting one")
    parser.add_argument("--attack", action="store_true", help="measure again with hostile clients beside")
    parser.add_argument("--descriptors", type=int, help="the started server's limit on open descriptors "
                        "(soft and hard), e.g. 1024 as on many machines: the slow client's target")
    parser.add_argument("--trace", type=Path, help="write the loaded run's plays to this JSON file: "
                        "[send time (s, monotonic clock), round trip (ms)] each")
    parser.add_argument("--protocol", type=int, nargs="+", choices=(1, 2), default=[1],
                        help="the players' protocol version(s); several: alternated runs, side by side")
    parser.add_argument("--rounds", type=int, default=1, help="loaded runs of each protocol (alternated)")
    args = parser.parse_args()
    if len(args.protocol) > 1 or args.rounds > 1:
        compare_protocols(args.tables, args.seconds, args.protocol, args.rounds)
        return
    with tempfile.TemporaryDirectory() as folder:
        started = None if args.url else start_server(Path(folder), descriptors=args.descriptors)
        process, url = started or (None, args.url)
        try:
            pid = None if process is None else process.pid
            base = asyncio.run(measure(url, 1, min(5.0, args.seconds), pid))
            plays = Stats()
            loaded = asyncio.run(measure(url, args.tables, args.seconds, pid, plays))
            if args.trace:
                pairs = zip(plays.sent, plays.latencies, strict=True)
                args.trace.write_text(json.dumps([[sent, round(late * 1000, 3)] for sent, late in pairs]))
            attacked = None
            if args.attack:
                attacked = asyncio.run(measure_under_attack(url, args.tables, args.seconds))
        finally:
            if process is not None:
                process.terminate()
                process.wait(10)
    print(f"kseri server, SQLite, durable commits, {os.cpu_count()} cores; client and server on one machine")
    print(f"{'':>22} {'plays/s':>9} {'median ms':>10} {'p99 ms':>8} {'server CPU ms/play':>19} "
          f"{'client CPU ms/play':>19}")
    print_row("1 table (baseline)", base)
    print_row(f"{args.tables} tables", loaded)
    if attacked is not None:
        (rate, median, p99, _, _), seen = attacked
        print(f"{f'{args.tables} under attack':>22} {rate:9.0f} {median:10.1f} {p99:8.1f}")
        print(f"the attackers: {seen}")


def compare_protocols(tables: int, seconds: float, protocols: list[int], rounds: int) -> None:
    """Loaded runs of each protocol, alternated on one started server, and their medians."""
    runs: dict[int, list[tuple[float, float, float, float, float]]] = {p: [] for p in protocols}
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder))
        try:
            for protocol in protocols:  # a short warm-up of each, not counted
                asyncio.run(measure(url, tables, min(3.0, seconds), process.pid, protocol=protocol))
            for _ in range(rounds):
                for protocol in protocols:
                    runs[protocol].append(asyncio.run(measure(url, tables, seconds, process.pid,
                                                              protocol=protocol)))
        finally:
            process.terminate()
            process.wait(10)
    print(f"kseri server, SQLite, durable commits, {os.cpu_count()} cores; client and server on one machine; "
          f"{tables} tables, {rounds} alternated runs of {seconds:g} s per protocol")
    print(f"{'':>22} {'plays/s':>9} {'median ms':>10} {'p99 ms':>8} {'server CPU ms/play':>19} "
          f"{'client CPU ms/play':>19}")
    for protocol in protocols:
        for number, figures in enumerate(runs[protocol], 1):
            print_row(f"v{protocol} run {number}", figures)
    for protocol in protocols:
        print_row(f"v{protocol} median", tuple(statistics.median(run[column] for run in runs[protocol])
                                                for column in range(5)))


def print_row(label: str, figures: tuple[float, ...]) -> None:
    """One row of figures: plays/s, median and p99 ms, the server's and the client's CPU ms a play."""
    rate, median, p99, cpu, own = figures
    print(f"{label:>22} {rate:9.0f} {median:10.1f} {p99:8.1f} {cpu:19.2f} {own:19.2f}")


if __name__ == "__main__":
    main()

"""Chaos on a cluster: three ``kseri serve`` processes behind nginx (``scripts/nginx``,
round-robin, no sticky sessions) with PostgreSQL and Redis. Whole matches are played by
clients that only know nginx's address, so a match's players sit on different processes and
move whenever theirs goes away. The owners of busy tables are killed with kill -9 at random
moments (and restarted), and every process is restarted in turn with SIGTERM while 20 games
run. Afterwards every message every connection received is audited against what its seat may
know, every record replays and verifies, and the plays the clients were told of are exactly
the plays stored: none lost, none applied twice."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
import websockets
from clusterkit import LEASE, Cluster, Player, acknowledged, verified_record
from nginxkit import Nginx
from serverkit import Client, Json, Server, audit, finished, human

KILLS = 10
"""kill -9s of busy tables' owners in the chaos test (the issue asks for at least 10)."""
GAMES = 20
"""Games running through the rolling restart."""
STALLED = 300
"""Seconds a match may go without any new state before it counts as stalled (the test then
fails, showing what every process logged about its table)."""


ROLLING_LEASE = "5"
"""Seconds of lease while 20 games run on three processes: a loaded machine must not starve
the renewals (every third of a lease) into needless takeovers."""


@pytest.fixture
def balanced(start_cluster: Callable[..., Cluster], request: pytest.FixtureRequest
             ) -> Iterator[tuple[Cluster, Nginx]]:
    cluster = start_cluster(3, **getattr(request, "param", {}))
    nginx = Nginx([server.port for server in cluster.servers]).start()
    yield cluster, nginx
    nginx.stop()


def restart(cluster: Cluster, index: int) -> Server:
    """Start process ``index`` again on its port (nginx's upstream), after it stopped."""
    old = cluster.servers[index]
    assert old.process is not None and old.process.poll() is not None
    fresh = Server(cluster.database_url, {"--redis": cluster.redis_url, "--lease": LEASE, **cluster.options},
                   port=old.port)
    cluster.retired.append(old)
    cluster.servers[index] = fresh
    return fresh.start()


async def open_table(nginx: Nginx, rules: str = "greek") -> tuple[str, str, str]:
    """A two-player table opened and joined through nginx (so by different processes, the join
    forwarded to the owner); retried while a process is down or draining."""
    deadline = time.monotonic() + 60
    async with httpx.AsyncClient(timeout=30) as http:
        while True:
            try:
                created = await http.post(nginx.http + "/api/tables",
                                          json={"rules": rules, "seats": [human("Ana"), human("Ben")]})
                if created.status_code == 201:
                    table_id = created.json()["table"]["id"]
                    for _ in range(30):
                        joined = await http.post(f"{nginx.http}/api/tables/{table_id}/join",
                                                 json={"name": "Ben"})
                        if joined.status_code == 200:
                            return table_id, created.json()["token"], joined.json()["token"]
                        await asyncio.sleep(0.5)
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "no table could be opened through nginx"
            await asyncio.sleep(0.5)


class Match:
    """A match played through nginx by two reconnecting players."""

    def __init__(self, cluster: Cluster, nginx: Nginx, table: tuple[str, str, str]) -> None:
        self.cluster, self.table_id = cluster, table[0]
        self.players = [Player(cluster, self.table_id, token, seat, via=nginx)  # type: ignore[arg-type]
                        for seat, token in enumerate(table[1:])]

    async def play(self, stop: Callable[[Json], bool] = finished) -> None:
        async def seat(player: Player) -> None:
            progress = -1
            while True:
                try:
                    await player.play_until(stop, timeout=STALLED)
                    return
                except TimeoutError:
                    # stalled only if nothing moved for that long: on a loaded machine a match
                    # through lease hand-overs may just be slow
                    if self.latest() == progress:
                        raise
                    progress = self.latest()
                except websockets.InvalidStatus:  # nginx's 502: every process refused it just now
                    await asyncio.sleep(0.5)
                    continue
                except AssertionError as refused:
                    # refusals that change nothing, after which the latest state decides what
                    # comes next (as after a refused stale play): after a reconnection the
                    # backlog's older states ask for plays too, and one whose round has ended
                    # since is not due; a client that retried too fast is throttled. (A play
                    # reaching a process as it hands its table over is answered by the close
                    # with the reconnect hint, never by an error.)
                    if not any(f"'{code}'" in str(refused) for code in ("not-playing", "throttled")):
                        raise
                    assert player.client is not None
                    player.client._played.discard(player.client._last_play)  # may be played again
                    await asyncio.sleep(0.5)

        try:
            await asyncio.gather(*map(seat, self.players))
        except TimeoutError:
            logged = [line for server in [*self.cluster.retired, *self.cluster.servers]
                      for line in server.output().splitlines() if self.table_id in line]
            closes = [p.closes for p in self.players]
            seen = [(p.client.states[-1]["seq"] if p.client.states else None,
                     [m["type"] for m in p.client.received[-4:]]) if p.client else None for p in self.players]
            answers = [await answered(p.client) if p.client else None for p in self.players]
            live = [s for s in self.cluster.servers if s.process and s.process.poll() is None]
            ports = " or ".join(f"sport = :{s.port}" for s in live)
            closing = subprocess.run(["ss", "-tno", "state", "all", "exclude", "established",
                                      "exclude", "listening", f"( {ports} )"],
                                     capture_output=True, text=True, check=False).stdout
            stacks = [f"port {s.port}:\n{await asyncio.to_thread(s.stacks)}" for s in live]
            raise AssertionError(f"table {self.table_id} stopped at seq {self.latest()} (each seat's last "
                                 f"state and last messages: {seen}; a ping now: {answers}): {closes}; "
                                 "logged:\n" + "\n".join(logged)
                                 + "\n\nthe live processes' sockets not established:\n" + closing
                                 + "\n\nwhere each live process is:\n" + "\n".join(stacks)) from None

    def latest(self) -> int:
        """The latest seq either player has seen."""
        seen = [p.client.states[-1]["seq"] for p in self.players if p.client and p.client.states]
        return max(seen, default=0)

    def clients(self) -> list[Client]:
        clients = [player.client for player in self.players]
        assert all(clients)
        return clients  # type: ignore[return-value]


async def answered(client: Client) -> str:
    """Whether a client's connection is alive end to end (a ping answered within 10 s), and how
    its socket stands (the client's reading paused or not, the messages it holds, ``ss``)."""
    connection = client.connection
    messages = getattr(connection, "recv_messages", None)
    held = (f"reading paused: {getattr(messages, 'paused', '?')}, "
            f"{len(getattr(messages, 'frames', []))} frames held")
    port = connection.local_address[1]
    ss = subprocess.run(["ss", "-tnoi", "state", "all", f"( sport = :{port} or dport = :{port} )"],
                        capture_output=True, text=True, check=False).stdout
    try:
        pong = await connection.ping()
        await asyncio.wait_for(pong, 10)
        return f"answered; {held}; {connection.state.name}\n{ss}"
    except TimeoutError:
        return f"no answer in 10 s; {held}; {connection.state.name}\n{ss}"
    except websockets.ConnectionClosed as closed:
        return f"closed ({closed}); {held}; {connection.state.name}\n{ss}"


async def check_finished(cluster: Cluster, nginx: Nginx, match: Match) -> int:
    """The match's record verifies, the plays told are the plays stored, and every message each
    player received (over all its connections) holds exactly its seat's view; returns how
    many messages were audited."""
    for _ in range(5):  # a finished table may move as its owner lets it go: the watcher reconnects
        try:
            watcher = await Client.connect(nginx, match.table_id, since=0)  # type: ignore[arg-type]
            await watcher.play_until(finished)
            await watcher.close()
            break
        except websockets.ConnectionClosedError as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1012, closed
            await asyncio.sleep(0.5)
    else:
        raise AssertionError(f"table {match.table_id}: the watcher was told to reconnect five times")
    checked = audit(watcher.states, match.clients())
    assert acknowledged(match.clients()) == await asyncio.to_thread(cluster.plays, match.table_id)
    verified_record(nginx, match.table_id)  # type: ignore[arg-type]
    return checked


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_kill_9_of_busy_owners_loses_and_doubles_nothing(balanced: tuple[Cluster, Nginx]) -> None:
    cluster, nginx = balanced
    chooser = random.Random(12)
    matches: list[Match] = []
    kills: list[str] = []

    async def lane(stop: asyncio.Event) -> None:
        while not stop.is_set():  # matches one after another until the killing is over
            match = Match(cluster, nginx, await open_table(nginx, "greek,target=60"))
            matches.append(match)
            await match.play()

    async def killer(stop: asyncio.Event) -> None:
        while len(kills) < KILLS:
            await asyncio.sleep(chooser.uniform(0.5, 3.0))
            busy = [m for m in matches if m.latest() > 4]
            owner = None
            while busy and owner is None:
                match = busy.pop(chooser.randrange(len(busy)))
                owner = await asyncio.to_thread(cluster.owner, match.table_id)
            if owner is None:
                continue
            index = cluster.servers.index(owner)
            owner.kill()
            kills.append(match.table_id)
            await asyncio.to_thread(restart, cluster, index)
        stop.set()

    async def chaos() -> None:
        stop = asyncio.Event()
        await asyncio.gather(killer(stop), *(lane(stop) for _ in range(4)))

    asyncio.run(chaos())
    assert len(kills) >= KILLS
    audited = sum(asyncio.run(check_finished(cluster, nginx, match)) for match in matches)
    assert audited > 0
    assert sum("took table" in server.output() for server in cluster.servers) >= 1
    moved = {code for match in matches for player in match.players for code, _ in player.closes}
    assert moved, "no connection was ever moved"


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("balanced", [{"lease": ROLLING_LEASE}], indirect=True, ids=["lease-5s"])
def test_a_rolling_restart_with_20_games_running(balanced: tuple[Cluster, Nginx]) -> None:
    cluster, nginx = balanced

    async def rolling() -> list[Match]:
        tables = [await open_table(nginx) for _ in range(GAMES)]
        matches = [Match(cluster, nginx, table) for table in tables]
        await asyncio.gather(*(match.play(lambda s: s["seq"] >= 10) for match in matches))
        games = asyncio.gather(*(match.play() for match in matches))
        for index in range(len(cluster.servers)):
            server = cluster.servers[index]
            assert server.process is not None
            server.process.send_signal(signal.SIGTERM)
            await asyncio.to_thread(server.process.wait, 60)
            assert "handing" in server.output()
            await asyncio.to_thread(restart, cluster, index)
        await games
        return matches

    matches = asyncio.run(rolling())
    assert len(matches) == GAMES
    for match in matches:
        assert asyncio.run(check_finished(cluster, nginx, match)) > 0
    closes = [reason for match in matches for player in match.players for code, reason in player.closes
              if code == 1012]
    assert any("restarting" in reason for reason in closes), closes

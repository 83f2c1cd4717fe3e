"""A cluster's traffic between processes, through Redis pub/sub (``server/cluster.py``).

Each process subscribes to one channel, ``kseri:proc:<id>``. A WebSocket (or an HTTP request
about a table) that reaches a process not owning the table is relayed: each client frame is
published to the owner's channel with a connection id, and the owner answers it through a
:class:`RemoteConnection`, which behaves as a local connection of the same seat but publishes
each message (that seat's view only) back to the relaying process's channel. A publish heard
by nobody means the other process is gone: the relaying side closes its client with 1012 (the
reconnect hint), the owning side forgets the connection. At each check the relaying side lists
its clients to each owner (``known``), which closes those it no longer serves (``close``, 1012)
and forgets those no longer listed. A message is one line of JSON (the
envelope), a newline, and the payload unchanged.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Protocol

from fastapi import WebSocket
from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError

from kseri.server import wire
from kseri.server.audience import DROPPED, RESTART, Connection
from kseri.server.cluster import HANDING_OVER, RECONNECT, TRY_AGAIN_LATER, Cluster, Elsewhere
from kseri.server.limits import ASGIApp, Receive, Scope, Send
from kseri.server.pairing import TakeOver
from kseri.server.room import GameTable
from kseri.server.settings import ServerSettings

log = logging.getLogger("kseri.server")

LOBBY_KEY = "kseri:lobby:"
"""Each process's public tables, refreshed every second (``kseri:lobby:<process>``)."""
IN_PLAY_KEY = "kseri:in-play:"
"""How many tables each process holds in play or waiting (``kseri:in-play:<process>``),
refreshed with the lobby: the ceiling ``max_live_tables`` counts every process's."""
FORWARDED = b"x-kseri-forwarded"
"""The header on an HTTP request another process forwarded (it is never forwarded again)."""
HTTP_TIMEOUT = 45.0
"""Seconds a forwarded request may take (a seek's status waits up to 30 s for news)."""
TABLE_PATH = re.compile(r"^/api/(?:moderation/)?tables/([^/]+)(/.*)?$")
"""A request about one table (a player's, or a moderator's close): its holder answers it."""
SEEKS_PATH = "/api/seeks"
PAIRING_KEY = "kseri:pairing"
"""The process that holds the seeks and pairs them (one at a time, under an expiring key)."""
SEEKS_KEY = "kseri:seeks"
"""The seeks as their holder last stored them (a JSON list): the next holder restores them."""
SEEKS_KEPT = 60
"""Seconds the stored seeks outlive their holder (renewed with its key): a cluster stopped for
longer forgets them, their players long gone."""
_KEEP_IF_MINE = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
                 "return redis.call('set', KEYS[2], ARGV[2], 'EX', ARGV[3]) else return 0 end")
_RENEW_IF_MINE = ("if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('expire', KEYS[2], ARGV[3]) "
                  "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end")
_DELETE_IF_MINE = ("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
                   "else return 0 end")


CUT_OFF = "the server cannot reach the cluster's Redis; reconnect"
"""Why a relayed client is closed (with :data:`~kseri.server.cluster.TRY_AGAIN_LATER`) while
Redis cannot be reached."""
UNREACHABLE = "this server process cannot reach the cluster's Redis right now; nothing was changed, try again"

EVERYONE = "kseri:all"
"""The channel every process of the cluster listens on (changes to accounts)."""


def channel(process: str) -> str:
    """A process's Redis channel."""
    return f"kseri:proc:{process}"


class Bus:
    """One Redis subscription per process, and one publisher that keeps messages in order."""

    def __init__(self, url: str, me: str, deliver: Callable[[dict[str, Any], str], None],
                 settle: float) -> None:
        self.redis: Redis = Redis.from_url(url)
        self.me = me
        self.deliver = deliver
        self.settle = settle
        """Seconds after this process (re)subscribes during which the others are not yet judged
        by their subscriptions (after Redis restarts, each process subscribes again in turn)."""
        self.subscribed_at: float | None = None
        """When the subscription last began (``time.monotonic()``); ``None`` while it is down."""
        self._out: asyncio.Queue[tuple[str, str, asyncio.Future[int] | None]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Subscribe and start publishing."""
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(channel(self.me), EVERYONE)
        self._tasks = [asyncio.create_task(self._read(pubsub)), asyncio.create_task(self._write())]

    async def stop(self) -> None:
        """Stop listening and publishing."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with suppress(asyncio.CancelledError, Exception):
                await task
        await self.redis.aclose()

    def post(self, process: str | None, envelope: dict[str, Any], payload: str = "") -> asyncio.Future[int]:
        """Publish to ``process`` (``None``: to every process); the future gives how many
        heard it (0: it is gone)."""
        heard: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._out.put_nowait((EVERYONE if process is None else channel(process),
                              json.dumps(envelope, separators=(",", ":")) + "\n" + payload, heard))
        return heard

    async def alive(self, process: str) -> bool:
        """Whether ``process`` still listens on its channel (given the benefit of the doubt
        while this process's own subscription is down or newer than :attr:`settle`)."""
        counts = await self.redis.pubsub_numsub(channel(process))
        if counts and counts[0][1]:
            return True
        return self.subscribed_at is None or time.monotonic() - self.subscribed_at < self.settle

    async def _write(self) -> None:
        while True:
            batch = [await self._out.get()]
            while not self._out.empty() and len(batch) < 256:
                batch.append(self._out.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for name, text, _ in batch:
                        pipe.publish(name, text)
                    counts = await pipe.execute()
            except Exception as error:
                if isinstance(error, RedisError):
                    log.warning("could not publish to Redis: %s", error)
                else:
                    log.exception("could not publish to Redis")
                for _, _, heard in batch:
                    if heard is not None and not heard.done():
                        heard.set_exception(error)
                continue
            for (_, _, heard), count in zip(batch, counts, strict=True):
                if heard is not None and not heard.done():
                    heard.set_result(int(count))

    async def _read(self, pubsub: Any) -> None:
        while True:
            try:
                async for message in pubsub.listen():
                    if message["type"] == "subscribe" and self.subscribed_at is None:
                        self.subscribed_at = time.monotonic()
                    if message["type"] != "message":
                        continue
                    text = message["data"].decode()
                    head, _, payload = text.partition("\n")
                    try:
                        self.deliver(json.loads(head), payload)
                    except Exception:
                        log.exception("a relayed message failed")
            except asyncio.CancelledError:
                raise
            except RedisError as error:
                self.subscribed_at = None
                log.warning("the Redis subscription failed (%s); subscribing again", error)
                await asyncio.sleep(0.5)
            except Exception:
                log.exception("the Redis subscription failed; subscribing again")
                await asyncio.sleep(0.5)


class RemoteConnection(Connection):
    """A connection held by another process, as the owner of its table sees it."""

    def __init__(self, bus: Bus, relay: str, conn_id: str, settings: ServerSettings,
                 user: str | None) -> None:
        super().__init__(None, settings, user)
        self.bus, self.relay, self.conn_id = bus, relay, conn_id
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def send_text(self, text: str) -> None:
        """Publish a message to the relaying process, for this connection alone."""
        if self.dropped:
            return
        heard = self.bus.post(self.relay, {"op": "text", "conn": self.conn_id}, text)
        heard.add_done_callback(self._heard)

    def _heard(self, heard: asyncio.Future[int]) -> None:
        if heard.cancelled() or heard.exception() is not None or heard.result() == 0:
            self.gone()

    def gone(self) -> None:
        """The relaying process is gone: forget the connection."""
        if not self.dropped:
            self.dropped = "its relaying process is gone"
            if self.on_drop is not None:
                self.on_drop()

    def drop(self, reason: str, code: int = DROPPED) -> None:
        """Ask the relaying process to close the client (``code``, ``reason``)."""
        if self.dropped:
            return
        self.bus.post(self.relay, {"op": "close", "conn": self.conn_id, "code": code, "reason": reason})
        super().drop(reason, code)

    def close(self) -> None:
        """Close the client normally."""
        self.drop("closed", 1000)


@dataclass(eq=False)
class Link:
    """A client of this process whose table another process owns."""

    connection: Connection
    table_id: str
    owner: str
    closed_by_owner: bool = False


class TableSource(Protocol):
    """What the relay needs of the process's tables (:class:`~kseri.server.registry.LeasedRegistry`)."""

    async def get(self, table_id: str, gone: str | None = None) -> GameTable | None:
        """The table, taking its lease if nobody holds it (``gone``: an owner known dead)."""

    def listed(self) -> list[GameTable]:
        """The public tables this process holds, for the lobby."""

    def in_play(self) -> int:
        """How many tables this process holds in play or waiting."""


@dataclass(eq=False)
class Relay:
    """Both ends of the cluster's relaying for one process."""

    cluster: Cluster
    settings: ServerSettings
    tables: TableSource
    """The process's tables (:class:`~kseri.server.registry.LeasedRegistry`)."""
    heard: Callable[[dict[str, Any]], None]
    """Told of another process's change to accounts or tournaments (:meth:`tell_peers` there)."""
    app: ASGIApp
    """The application that answers HTTP requests forwarded here."""
    links: dict[str, Link] = field(default_factory=dict)
    remotes: dict[str, RemoteConnection] = field(default_factory=dict)
    replies: dict[str, asyncio.Future[tuple[dict[str, Any], str]]] = field(default_factory=dict)
    bus: Bus = field(init=False)
    take_seeks: TakeOver | None = None
    """Called when nobody holds the seeks (``Pairing.take_over``), with :meth:`_take_seeks`."""
    in_play_elsewhere: int = 0
    """The other processes' tables in play or waiting, as they last told (every half second)."""
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def __post_init__(self) -> None:
        assert self.settings.redis_url is not None
        self.bus = Bus(self.settings.redis_url, self.cluster.me, self._deliver, self.cluster.leases.seconds)

    async def start(self) -> None:
        """Subscribe, and check links and remote connections at each lease renewal."""
        await self.bus.start()
        self.cluster.on_tick.extend([self._check, self._renew_pairing])
        self.cluster.on_sweep.append(self._take_over_from_the_dead)
        self._spawn(self._publish_lobby())

    def tell_peers(self, change: dict[str, Any]) -> None:
        """Tell every other process of a change to an account (they hear it in :attr:`heard`)."""
        self.bus.post(None, {**change, "from": self.cluster.me})

    async def stop(self) -> None:
        """Close every relayed client with the reconnect hint, stop the bus."""
        for link in list(self.links.values()):
            link.connection.drop(HANDING_OVER, RESTART)
        for task in list(self._tasks):
            task.cancel()
        with suppress(Exception):
            await self.bus.redis.delete(LOBBY_KEY + self.cluster.me, IN_PLAY_KEY + self.cluster.me)
        with suppress(Exception):
            await self.bus.redis.eval(_DELETE_IF_MINE, 1, PAIRING_KEY, self.cluster.me)
        await asyncio.sleep(0.05)  # let the last messages go out
        await self.bus.stop()

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the relaying side -------------------------------------------------------------------

    async def owner_elsewhere(self, table_id: str) -> str | None:
        """The process to relay a connection to this table to (``None``: serve it here, or it
        does not exist). Takes the table's lease when nobody holds it, or when its holder no
        longer listens on Redis (it died: no need to wait for its lease to expire)."""
        try:
            await self.tables.get(table_id)
        except Elsewhere as moved:
            if not moved.owner or await self.bus.alive(moved.owner):
                return moved.owner or ""
            try:
                await self.tables.get(table_id, gone=moved.owner)
            except Elsewhere as again:
                return again.owner or ""
        return None

    async def serve_socket(self, websocket: WebSocket, table_id: str, owner: str, user: str | None) -> None:
        """Relay an accepted client's frames to the table's owner and its messages back."""
        await websocket.accept()
        connection = Connection(websocket, self.settings, user)
        handler = asyncio.current_task()
        assert handler is not None
        conn_id = secrets.token_urlsafe(12)
        handler.set_name(f"table {table_id}: a connection relayed to {owner or 'nobody'} ({conn_id})")
        connection.on_drop = handler.cancel
        sender = asyncio.create_task(connection.send_forever())
        link = Link(connection, table_id, owner)
        self.links[conn_id] = link
        try:
            opening = {"op": "open", "conn": conn_id, "table": table_id, "from": self.cluster.me,
                       "user": user}
            heard = await self.bus.post(owner, opening) if owner else 0
            if not heard:
                connection.drop(RECONNECT, RESTART)
            while not connection.dropped:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                envelope = {"op": "frame", "conn": conn_id, "binary": text is None}
                if not await self.bus.post(owner, envelope, text or ""):
                    connection.drop(RECONNECT, RESTART)
        except RedisError:
            connection.drop(CUT_OFF, TRY_AGAIN_LATER)
        except asyncio.CancelledError:
            if not connection.dropped:
                raise
        finally:
            del self.links[conn_id]
            if not link.closed_by_owner and owner:
                self.bus.post(owner, {"op": "gone", "conn": conn_id})
            await connection.finish(sender)

    async def _check(self) -> None:
        """Close relayed clients whose table's owner changed, let go or hung past its lease;
        forget remote connections whose relaying process is gone. While Redis cannot be
        reached, nothing is relayed: every relayed client is closed (1013, try again later:
        one that reconnects to its table's owner plays on) and every remote one forgotten."""
        try:
            await self._check_links()
        except RedisError as error:
            log.warning("cannot reach Redis (%s): %d relayed connections closed, %d remote ones forgotten",
                        error, len(self.links), len(self.remotes))
            for link in list(self.links.values()):
                link.connection.drop(CUT_OFF, TRY_AGAIN_LATER)
            for remote in list(self.remotes.values()):
                remote.gone()

    async def _check_links(self) -> None:
        links = list(self.links.values())  # those opened while this check waits are checked next time
        owners = await self.cluster.leases.owners(sorted({link.table_id for link in links}))
        alive = {owner: await self.bus.alive(owner) for owner in {link.owner for link in links}}
        for link in links:
            if owners.get(link.table_id) != link.owner or not alive[link.owner]:
                link.connection.drop(RECONNECT, RESTART)
        known: dict[str, list[str]] = {}  # every link now: the open of each went out before this
        for conn_id, link in self.links.items():
            if link.owner and not link.connection.dropped:
                known.setdefault(link.owner, []).append(conn_id)
        for owner, conn_ids in known.items():  # does the owner still serve them? (:meth:`_known`)
            self.bus.post(owner, {"op": "known", "from": self.cluster.me, "conns": conn_ids})
        for relay in {remote.relay for remote in self.remotes.values()}:
            if not await self.bus.alive(relay):
                for remote in [r for r in self.remotes.values() if r.relay == relay]:
                    remote.gone()

    async def _take_over_from_the_dead(self) -> None:
        """Take over now the tables of processes that no longer listen on Redis (they died),
        without waiting for their leases to expire."""
        if self.cluster.draining:
            return
        try:
            for owner in await self.cluster.leases.holders():
                if not await self.bus.alive(owner):
                    for table_id in await self.cluster.leases.held_by(owner):
                        with suppress(Elsewhere):
                            await self.tables.get(table_id, gone=owner)
        except RedisError as error:
            log.warning("cannot reach Redis (%s): the tables of processes that died wait for their leases "
                        "to expire", error)

    # -- the owning side ---------------------------------------------------------------------

    def _deliver(self, envelope: dict[str, Any], payload: str) -> None:
        op = envelope["op"]
        if op == "text":
            link = self.links.get(envelope["conn"])
            if link is not None:
                link.connection.send_text(payload)
        elif op == "close":
            link = self.links.get(envelope["conn"])
            if link is not None:
                link.closed_by_owner = True
                link.connection.drop(envelope["reason"], envelope["code"])
        elif op == "frame":
            remote = self.remotes.get(envelope["conn"])
            if remote is not None:
                remote.inbox.put_nowait({"type": "websocket.receive",
                                         "text": None if envelope["binary"] else payload})
        elif op == "gone":
            remote = self.remotes.get(envelope["conn"])
            if remote is not None:
                remote.inbox.put_nowait(None)
        elif op == "open":
            self._open(envelope)
        elif op == "known":
            self._known(envelope)
        elif op == "http":
            self._spawn(self._serve_http(envelope, payload))
        elif (op in ("seats-claimed", "user-deleted", "tournament-changed")
              and envelope["from"] != self.cluster.me):
            self.heard(envelope)
        elif op == "reply":
            reply = self.replies.pop(envelope["id"], None)
            if reply is not None and not reply.done():
                reply.set_result((envelope, payload))

    def _open(self, envelope: dict[str, Any]) -> None:
        remote = RemoteConnection(self.bus, envelope["from"], envelope["conn"], self.settings,
                                  envelope["user"])
        if self.cluster.draining:
            remote.drop(RECONNECT, RESTART)
            return
        self.remotes[remote.conn_id] = remote
        self._spawn(self._serve_remote(envelope["table"], remote))

    def _known(self, envelope: dict[str, Any]) -> None:
        """A relaying process's connections to tables here, as it holds them now: those this
        process no longer serves are closed with the reconnect hint (the owner forgot them, as
        when a message to their relay went unheard), those it serves and the relay no longer
        holds are forgotten (their ``gone`` was lost). Its ``open`` for each came before."""
        relay, listed = envelope["from"], set(envelope["conns"])
        for conn_id in sorted(listed - self.remotes.keys()):
            self.bus.post(relay, {"op": "close", "conn": conn_id, "code": RESTART, "reason": RECONNECT})
        for remote in [r for r in self.remotes.values() if r.relay == relay and r.conn_id not in listed]:
            remote.gone()

    async def _serve_remote(self, table_id: str, remote: RemoteConnection) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        handler.set_name(f"table {table_id}: a connection relayed from {remote.relay} ({remote.conn_id})")
        remote.on_drop = handler.cancel
        table: GameTable | None = None
        try:
            with suppress(Elsewhere, DBAPIError, OSError):  # a finished table let go a moment ago loads again
                table = await self.tables.get(table_id)
            if table is None:
                remote.drop(RECONNECT, RESTART)
                return
            await wire.serve(table, remote, remote.inbox.get, self.settings)
        except asyncio.CancelledError:
            if not remote.dropped:
                raise
        finally:
            self.remotes.pop(remote.conn_id, None)
            if table is not None:
                await table.leave(remote)

    # -- HTTP about a table owned elsewhere --------------------------------------------------

    async def pass_on(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer an HTTP request about a table another process owns (or about the seeks,
        another process holds them) through that process; ``False``: it is for this one."""
        path = scope["path"]
        found = TABLE_PATH.match(path)
        seeks = path == SEEKS_PATH or path.startswith(SEEKS_PATH + "/")
        if not (found or seeks) or any(name == FORWARDED for name, _ in scope["headers"]):
            return False
        owner = await (self.owner_elsewhere(found.group(1)) if found else self.pairing_leader())
        if owner is None:
            return False
        await self.forward(owner, scope, receive, send)
        return True

    async def forward(self, owner: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer an HTTP request about a table through its owner."""
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request_id = secrets.token_urlsafe(12)
        reply: asyncio.Future[tuple[dict[str, Any], str]] = asyncio.get_running_loop().create_future()
        self.replies[request_id] = reply
        envelope = {"op": "http", "id": request_id, "from": self.cluster.me, "method": scope["method"],
                    "path": scope["path"], "query": scope.get("query_string", b"").decode("latin-1"),
                    "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]],
                    "client": list(scope["client"]) if scope.get("client") else None}
        error = {"code": "table-moving", "message": "the table is moving to another server process; try "
                 "again in a moment"}
        try:
            if owner and await self.bus.post(owner, envelope, base64.b64encode(body).decode()):
                answer, payload = await asyncio.wait_for(reply, HTTP_TIMEOUT)
                headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer["headers"]]
                await send({"type": "http.response.start", "status": answer["status"], "headers": headers})
                await send({"type": "http.response.body", "body": base64.b64decode(payload)})
                return
        except TimeoutError:
            pass
        except RedisError:
            error = {"code": "cluster-unavailable", "message": UNREACHABLE}
        finally:
            self.replies.pop(request_id, None)
        text = json.dumps({"error": error}).encode()
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"application/json"), (b"retry-after", b"1"),
            (b"content-length", str(len(text)).encode())]})
        await send({"type": "http.response.body", "body": text})

    async def _serve_http(self, envelope: dict[str, Any], payload: str) -> None:
        body = base64.b64decode(payload)
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in envelope["headers"]]
        scope: Scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": envelope["method"],
            "scheme": "http", "path": envelope["path"], "raw_path": envelope["path"].encode(),
            "query_string": envelope["query"].encode("latin-1"), "root_path": "",
            "headers": [*headers, (FORWARDED, b"1")], "client": tuple(envelope["client"] or ("unknown", 0)),
            "server": ("cluster", 0),
        }
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.sleep(HTTP_TIMEOUT)
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        answer: dict[str, Any] = {"op": "reply", "id": envelope["id"], "status": 500, "headers": []}
        chunks: list[bytes] = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["headers"] = [[k.decode("latin-1"), v.decode("latin-1")]
                                     for k, v in message.get("headers", [])]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)  # type: ignore[arg-type]
        self.bus.post(envelope["from"], answer, base64.b64encode(b"".join(chunks)).decode())

    # -- the seeks ------------------------------------------------------------------------

    async def pairing_leader(self) -> str | None:
        """The process holding the seeks (``None``: this one, which takes the part when no
        process holds it)."""
        redis = self.bus.redis
        leader = await redis.get(PAIRING_KEY)
        if leader is None and not self.cluster.draining and self.take_seeks is not None:
            await self.take_seeks(self._take_seeks)
            leader = await redis.get(PAIRING_KEY)
        name = leader.decode() if isinstance(leader, bytes) else leader or ""
        return None if name == self.cluster.me else name

    async def _take_seeks(self) -> list[dict[str, Any]] | None:
        """Hold the seeks if nobody does: the seeks kept (``None``: another process holds them)."""
        redis, hold = self.bus.redis, int(self.cluster.leases.seconds * 1000)
        if not await redis.set(PAIRING_KEY, self.cluster.me, nx=True, px=hold):
            return None
        stored = await redis.get(SEEKS_KEY)
        found: list[dict[str, Any]] = json.loads(stored) if stored else []
        return found

    async def keep(self, seeks: list[dict[str, Any]]) -> None:
        """Store the seeks for the next holder (:data:`SEEKS_KEY`), unless another process holds
        them now (this one hung past its key)."""
        await self.bus.redis.eval(_KEEP_IF_MINE, 2, PAIRING_KEY, SEEKS_KEY, self.cluster.me,
                                  json.dumps(seeks, separators=(",", ":")), SEEKS_KEPT)

    async def holding(self) -> bool:
        """Whether this process holds the seeks' key now (while Redis cannot be reached, nobody
        else can take it: yes)."""
        try:
            held = await self.bus.redis.get(PAIRING_KEY)
        except RedisError:
            return True
        return held is not None and (held.decode() if isinstance(held, bytes) else held) == self.cluster.me

    async def _renew_pairing(self) -> None:
        if not self.cluster.draining:
            try:
                await self.bus.redis.eval(_RENEW_IF_MINE, 2, PAIRING_KEY, SEEKS_KEY, self.cluster.me,
                                          int(self.cluster.leases.seconds * 1000), SEEKS_KEPT)
            except RedisError as error:
                log.warning("could not renew the seeks' key: %s", error)

    # -- the lobby -------------------------------------------------------------------------

    async def _publish_lobby(self) -> None:
        last = None
        while True:
            entries = [{"key": [t.state.status != "waiting", -t.created, t.id], "table": t.table_json()}
                       for t in self.tables.listed()]
            text = json.dumps(entries, separators=(",", ":"))
            try:
                if text != last:
                    await self.bus.redis.set(LOBBY_KEY + self.cluster.me, text, ex=10)
                    last = text
                else:
                    await self.bus.redis.expire(LOBBY_KEY + self.cluster.me, 10)
                await self._count_in_play()
            except RedisError as error:
                log.warning("could not publish the lobby: %s", error)
            except Exception:
                log.exception("could not publish the lobby")
            await asyncio.sleep(0.5)

    async def _count_in_play(self) -> None:
        """Tell the others how many tables this process holds in play, and learn theirs."""
        redis, mine = self.bus.redis, IN_PLAY_KEY + self.cluster.me
        await redis.set(mine, self.tables.in_play(), ex=10)
        keys = [key async for key in redis.scan_iter(match=IN_PLAY_KEY + "*", count=1000)
                if (key.decode() if isinstance(key, bytes) else key) != mine]
        counts = await redis.mget(keys) if keys else []
        self.in_play_elsewhere = sum(int(count) for count in counts if count is not None)

    async def lobby(self) -> list[dict[str, Any]]:
        """Every process's public tables, in the lobby's order."""
        keys = [key async for key in self.bus.redis.scan_iter(match=LOBBY_KEY + "*", count=1000)]
        entries: list[dict[str, Any]] = []
        for text in await self.bus.redis.mget(keys) if keys else []:
            if text is not None:
                entries.extend(json.loads(text))
        entries.sort(key=lambda entry: entry["key"])
        shown: dict[str, dict[str, Any]] = {}  # a table moving is listed by two processes a moment
        for entry in entries:
            shown.setdefault(entry["table"]["id"], entry["table"])
        return list(shown.values())

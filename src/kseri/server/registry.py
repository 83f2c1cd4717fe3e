"""Every table the server holds, behind one interface with two implementations.

:class:`TableRegistry` finds, creates, lists and lets go of tables, serves a client's
WebSocket to its table and passes on HTTP requests about tables held elsewhere. A single
process is the cluster of one: :class:`LocalRegistry` holds every table itself;
:class:`LeasedRegistry` (``--redis``, on PostgreSQL) holds a table under a lease with a
fencing number (``server/cluster.py``) and relays what reaches it for a table another process
holds (``server/relay.py``). No handler asks which one it has (``docs/architecture.md``).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from typing import Any

from fastapi import WebSocket
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError
from starlette.websockets import WebSocketState

from kseri.rules import Rules
from kseri.server import db, wire
from kseri.server.audience import DROPPED, RESTART, Connection
from kseri.server.cluster import HANDING_OVER, RECONNECT, TRY_AGAIN_LATER, Cluster, Elsewhere, Fenced, Leases
from kseri.server.errors import ApiError
from kseri.server.limits import ASGIApp, Receive, Scope, Send
from kseri.server.metrics import Health, Metrics, cluster_check
from kseri.server.pairing import Keeper, TakeOver
from kseri.server.protocol import ProtocolError
from kseri.server.relay import CUT_OFF, Relay
from kseri.server.room import UNFENCED, Fence, Finished, GameTable
from kseri.server.seats import SeatState
from kseri.server.settings import ServerSettings
from kseri.server.talk import MayTalk, allow_everyone
from kseri.server.workers import SearchPool

log = logging.getLogger("kseri.server")

LET_GO = "the table was let go of here a moment ago; reconnect"
"""Why a connection that says hello to an idle table just let go is closed (1012: it reconnects
and the table loads again)."""

UserOf = Callable[[WebSocket], Awaitable[str | None]]
"""The account a WebSocket's session signs in, if any (``Players.websocket_user``)."""
Change = dict[str, Any]
"""A change to accounts every process must know of (``{"op": "seats-claimed", …}``)."""


class TableRegistry(ABC):
    """Every table the server holds: unfinished ones live, finished ones loaded on demand."""

    def __init__(self, store: db.Store, settings: ServerSettings, search: SearchPool,
                 finished: Finished | None = None) -> None:
        self.store = store
        self.settings = settings
        self.search = search
        self.finished = finished
        """Told of each match played or abandoned to its end (the ratings)."""
        self.may_talk: MayTalk = allow_everyone
        """Whether an account may say table-talk phrases, asked by every table opened from now
        on (``server/talk.py``; the application wires moderation's mute here)."""
        self.live: dict[str, GameTable] = {}
        self._loading = asyncio.Lock()
        self._listeners: list[Callable[[Change], None]] = []
        self._forgetting: asyncio.Task[None] | None = None

    # -- the implementation's part ---------------------------------------------------------------

    @abstractmethod
    async def _hold(self, table_id: str, gone: str | None) -> Fence | None:
        """The right to load a table here: its fence, or ``None`` when there is no such table;
        raises :class:`~kseri.server.cluster.Elsewhere` when another process holds it."""

    @abstractmethod
    async def _hold_new(self, table_id: str) -> Fence:
        """The fence of a new table (before its first write)."""

    @abstractmethod
    def _dropped(self, table_id: str) -> None:
        """A new table's first write failed: it is held nowhere."""

    @abstractmethod
    async def _let_go(self, table_ids: list[str], *, deleted: bool = False) -> None:
        """These tables are no longer held here (``deleted``: nor anywhere)."""

    @abstractmethod
    async def _leave(self) -> None:
        """Stop serving (a cluster's process hands its tables over)."""

    @abstractmethod
    async def serve_socket(self, websocket: WebSocket, table_id: str, user: UserOf) -> None:
        """Serve a client's WebSocket to a table, here or through the process that holds it."""

    @abstractmethod
    async def pass_on(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer an HTTP request another process must answer (about a table it holds) through
        that process; ``False``: it is this process's to answer."""

    @abstractmethod
    async def lobby(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """A page of the public tables of every process (waiting first, then newest first) and
        how many there are in all."""

    @abstractmethod
    def tell_peers(self, change: Change) -> None:
        """Tell every other process of a change to accounts (they hear it in :meth:`listen`)."""

    @abstractmethod
    def seek_keeper(self, take_over: TakeOver) -> Keeper | None:
        """Where the seeks are kept for the next process to hold them (``None``: nowhere, a
        single process); ``take_over`` is called when nobody holds them."""

    @abstractmethod
    def in_play_elsewhere(self) -> int:
        """The tables in play or waiting on the cluster's other processes (as last told)."""

    @property
    @abstractmethod
    def accepting(self) -> bool:
        """Whether new tables may open here (not while this process hands its tables over)."""

    # -- the interface ---------------------------------------------------------------------------

    async def start(self, metrics: Metrics, health: Health) -> None:
        """Begin serving: watch the tables' count, and let go of idle tables now and then."""
        metrics.live_tables.set_function(lambda: len(self.live))
        metrics.tables_in_play.set_function(lambda: self.in_play() + self.in_play_elsewhere())
        limits = self.settings.limits
        every = max(1.0, min(60.0, limits.waiting_expiry / 2, limits.finished_kept))
        self._forgetting = asyncio.create_task(self._forget_idle(every))

    async def stop(self) -> None:
        """Stop letting tables go, leave the cluster (if any), stop every table's timers and the
        search workers."""
        if self._forgetting is not None:
            self._forgetting.cancel()
        await self._leave()
        for table in self.live.values():
            table.stop(HANDING_OVER)
        self.search.close()

    def listen(self, heard: Callable[[Change], None]) -> None:
        """Be told of every other process's change to accounts."""
        self._listeners.append(heard)

    def _heard(self, change: Change) -> None:
        for heard in self._listeners:
            heard(change)

    async def get(self, table_id: str, gone: str | None = None) -> GameTable | None:
        """The table with this id, or ``None``; raises :class:`~kseri.server.cluster.Elsewhere`
        when another process holds it (and is not ``gone``: see
        :meth:`~kseri.server.cluster.Leases.acquire`)."""
        table = self.live.get(table_id)
        if table is not None:
            table.touched = time.monotonic()  # asked for: not let go while a connection joins it
            return table
        if len(table_id) > 40:
            return None
        async with self._loading:
            if table_id in self.live:
                return self.live[table_id]
            fence = await self._hold(table_id, gone)
            if fence is None:
                return None
            restored = None
            try:
                stored = await self.store.load(table_id)
                if stored is not None:
                    restored = GameTable.restore(stored, self.store, self.settings, self.search,
                                                 fence=fence, finished=self.finished,
                                                 may_talk=self.may_talk)
            finally:
                if restored is None:  # not held for nothing
                    with suppress(Exception):
                        await self._let_go([table_id])
            if restored is None:
                return None
            self.live[table_id] = restored
            restored.start()
            return restored

    async def create(self, rules: Rules, seats: list[SeatState], *, casual: bool, public: bool,
                     clock: int | None, rematch_of: str | None = None, rated: bool = False,
                     deals: str | None = None) -> GameTable:
        """Open and store a new table with these seats (``deals``: a tournament round's deal
        key, :attr:`GameTable.deals`)."""
        if not self.accepting:
            raise ApiError(503, "restarting", "this server process is restarting; try again", retry_after=1)
        if self.in_play() + self.in_play_elsewhere() >= self.settings.limits.max_live_tables:
            raise ApiError(503, "too-many-tables", "the server holds as many tables as it can; try again "
                           "in a few minutes", retry_after=60)
        table_id = secrets.token_urlsafe(9)
        try:
            fence = await self._hold_new(table_id)
            table, batch = GameTable.new(table_id, rules, seats, casual=casual, public=public, clock=clock,
                                         store=self.store, settings=self.settings, search=self.search,
                                         rematch_of=rematch_of, rated=rated, fence=fence,
                                         finished=self.finished, may_talk=self.may_talk,
                                         deals=deals)
            await self.store.write(batch)
        except Exception:
            self._dropped(table_id)
            log.exception("could not store a new table")
            raise ApiError(503, "storage-unavailable", "the server cannot store new tables right now "
                           "(its database refused the write); try again later", retry_after=30) from None
        self.live[table_id] = table
        table.start()
        return table

    async def restore(self) -> None:
        """Bring back every unfinished table from the database."""
        for table_id in await self.store.unfinished():
            await self.get(table_id)

    async def _forget_idle(self, every: float) -> None:
        """Let go of finished tables nobody has watched for ``limits.finished_kept`` seconds
        (they load again from the database when asked for), so a long-running server's memory
        holds the tables in play; remove tables nobody joined within ``limits.waiting_expiry``."""
        while True:
            await asyncio.sleep(every)
            await self.sweep(self.settings.limits.finished_kept)

    async def sweep(self, after: float) -> None:
        """One pass of letting idle tables go."""
        now = time.monotonic()
        for table_id, table in list(self.live.items()):
            if table.idle(now, after):
                async with self._loading:  # asked for again meanwhile: loaded after its lease is let go
                    if not table.idle(now, after) or self.live.get(table_id) is not table:
                        continue
                    table.stop(LET_GO)
                    del self.live[table_id]
                    with suppress(Exception):
                        await self._let_go([table_id])
            elif table.unjoined(time.time(), self.settings.limits.waiting_expiry):
                try:
                    await self.remove(table)
                except Exception:
                    log.exception("could not remove the expired table %s", table_id)

    async def remove(self, table: GameTable, why: str = "the table was removed") -> None:
        """Delete a table held here from the database and let it go (one nobody joined in
        time, one a moderator closed, a rated table whose players were seated elsewhere
        meanwhile); its connections are dropped, told ``why``."""
        await self.store.delete_table(table.id)
        table.stop(why, DROPPED)
        if self.live.get(table.id) is table:
            del self.live[table.id]
        with suppress(Exception):
            await self._let_go([table.id], deleted=True)
    def in_play(self) -> int:
        """How many tables this process holds in play or waiting (``max_live_tables`` counts
        them, with the other processes' in a cluster)."""
        return sum(table.state.status != "finished" for table in self.live.values())

    def listed(self) -> list[GameTable]:
        """The lobby's tables here: public ones with a free seat (never a rematch's reserved
        seats) or being played."""
        return [t for t in self.live.values() if t.public and t.state.status != "finished"
                and not (t.rematch_of and t.state.status == "waiting")]

    async def _serve_here(self, websocket: WebSocket, table_id: str, user: UserOf) -> None:
        """Serve a client's WebSocket to a table this process holds (or takes)."""
        await websocket.accept()
        try:
            table = await self.get(table_id)
        except Elsewhere:  # in a cluster, it moved to another process a moment ago
            await websocket.close(RESTART, RECONNECT)
            return
        except (DBAPIError, OSError) as error:
            await unreachable(websocket, table_id, error)
            return
        connection = Connection(websocket, self.settings, await user(websocket))
        handler = asyncio.current_task()
        assert handler is not None
        handler.set_name(f"table {table_id}: a connection")  # as the stacks dump shows it
        connection.on_drop = handler.cancel
        sender = asyncio.create_task(connection.send_forever())
        try:
            if table is None:
                missing = ProtocolError("no-such-table", f"there is no table {table_id!r:.60}")
                connection.send(missing.to_message())
                return
            await wire.serve(table, connection, _frames(websocket), self.settings)
        except asyncio.CancelledError:
            if not connection.dropped:
                raise
        finally:
            if table is not None:
                await table.leave(connection)
            await connection.finish(sender)


class LocalRegistry(TableRegistry):
    """A single process's tables: every one is held here."""

    async def start(self, metrics: Metrics, health: Health) -> None:
        """Bring back the unfinished tables, then begin serving."""
        await self.restore()
        await super().start(metrics, health)

    async def _hold(self, table_id: str, gone: str | None) -> Fence | None:
        return UNFENCED

    async def _hold_new(self, table_id: str) -> Fence:
        return UNFENCED

    def _dropped(self, table_id: str) -> None:
        """Nothing was held."""

    async def _let_go(self, table_ids: list[str], *, deleted: bool = False) -> None:
        """Nothing to tell anyone."""

    async def _leave(self) -> None:
        """Nothing to hand over."""

    async def serve_socket(self, websocket: WebSocket, table_id: str, user: UserOf) -> None:
        await self._serve_here(websocket, table_id, user)

    async def pass_on(self, scope: Scope, receive: Receive, send: Send) -> bool:
        return False

    async def lobby(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        listed = self.listed()
        listed.sort(key=lambda t: (t.state.status != "waiting", -t.created, t.id))
        return [t.table_json() for t in listed[offset:offset + limit]], len(listed)

    def tell_peers(self, change: Change) -> None:
        """There are none."""

    def in_play_elsewhere(self) -> int:
        return 0

    def seek_keeper(self, take_over: TakeOver) -> Keeper | None:
        return None

    @property
    def accepting(self) -> bool:
        return True


class LeasedRegistry(TableRegistry):
    """One process's tables in a cluster (docs/server.md, Cluster): a table is taken as it is
    asked for, or when orphaned, under a lease whose fencing number guards its commits; what
    reaches this process for a table another process holds is relayed there."""

    def __init__(self, store: db.Store, settings: ServerSettings, search: SearchPool,
                 finished: Finished | None, app: ASGIApp) -> None:
        super().__init__(store, settings, search, finished)
        self.cluster = Cluster(Leases(store, settings.lease), self.live, self.get)
        self.relay = Relay(self.cluster, settings, self, self._heard, app)

    async def start(self, metrics: Metrics, health: Health) -> None:
        """Join the cluster: subscribe, renew leases, sweep up orphans; hand over on SIGTERM."""
        cluster, relay = self.cluster, self.relay
        await relay.start()
        cluster.start()
        metrics.count_takeovers(lambda: cluster.takeovers)
        health.checks.append(cluster_check(lambda: cluster.draining, relay.bus.redis))
        self._drain_on_sigterm()
        log.warning("kseri cluster: this is process %s", cluster.me)
        await super().start(metrics, health)

    async def _leave(self) -> None:
        """Hand the tables over (again after SIGTERM: what came in meanwhile), leave the cluster."""
        await self.cluster.drain()
        await self.relay.stop()
        await self.cluster.stop()

    async def _hold(self, table_id: str, gone: str | None) -> Fence | None:
        cluster = self.cluster
        if cluster.draining:
            raise Elsewhere(None)
        lease = await cluster.leases.acquire(table_id, gone)
        return None if lease is None else Fenced(cluster.leases, lease, cluster.lose)

    async def _hold_new(self, table_id: str) -> Fence:
        leases = self.cluster.leases
        return Fenced(leases, await leases.create(table_id), self.cluster.lose)

    def _dropped(self, table_id: str) -> None:
        self.cluster.leases.owned.pop(table_id, None)

    async def _let_go(self, table_ids: list[str], *, deleted: bool = False) -> None:
        if deleted:
            for table_id in table_ids:
                await self.cluster.leases.forget(table_id)
        else:
            await self.cluster.leases.release(table_ids)

    async def serve_socket(self, websocket: WebSocket, table_id: str, user: UserOf) -> None:
        try:
            owner = await self.relay.owner_elsewhere(table_id)
        except (DBAPIError, OSError, RedisError) as error:
            await unreachable(websocket, table_id, error)
            return
        if owner is None:
            await self._serve_here(websocket, table_id, user)
        else:
            await self.relay.serve_socket(websocket, table_id, owner, await user(websocket))

    async def pass_on(self, scope: Scope, receive: Receive, send: Send) -> bool:
        return await self.relay.pass_on(scope, receive, send)

    async def lobby(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        shown = await self.relay.lobby()
        return shown[offset:offset + limit], len(shown)

    def tell_peers(self, change: Change) -> None:
        self.relay.tell_peers(change)

    def in_play_elsewhere(self) -> int:
        return self.relay.in_play_elsewhere

    def seek_keeper(self, take_over: TakeOver) -> Keeper | None:
        self.relay.take_seeks = take_over
        return self.relay

    @property
    def accepting(self) -> bool:
        return not self.cluster.draining

    def _drain_on_sigterm(self) -> None:
        """On SIGTERM, hand this process's tables over and close its connections with the
        reconnect hint (1012) first, then let uvicorn stop as it would."""
        cluster, relay = self.cluster, self.relay
        stop_server = signal.getsignal(signal.SIGTERM)

        async def drain() -> None:
            try:
                await cluster.drain()
                for link in list(relay.links.values()):
                    link.connection.drop(HANDING_OVER, RESTART)
            finally:
                if callable(stop_server):
                    stop_server(signal.SIGTERM, None)

        def on_sigterm() -> None:
            if not cluster.draining:
                task = asyncio.ensure_future(drain())
                task.add_done_callback(lambda _: None)
                log.warning("SIGTERM: handing %d tables over", len(cluster.leases.owned))

        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, on_sigterm)


async def open_store(settings: ServerSettings) -> db.Store:
    """The store these settings ask for: shared by a cluster's processes (each table under a
    lease) with a cluster's Redis, else this process's alone (:meth:`db.Store.open`)."""
    return await db.Store.open(settings.database_url, shared=settings.redis_url is not None)


def open_registry(store: db.Store, settings: ServerSettings, finished: Finished | None,
                  app: ASGIApp) -> TableRegistry:
    """The registry these settings ask for: leased with a cluster's Redis, else local."""
    search = SearchPool(settings.search_workers, settings.limits.search_queue)
    if settings.redis_url is None:
        return LocalRegistry(store, settings, search, finished)
    return LeasedRegistry(store, settings, search, finished, app)


class PassOn:
    """ASGI middleware: an HTTP request another process must answer (about a table it holds)
    is answered through it (:meth:`TableRegistry.pass_on`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            tables: TableRegistry | None = getattr(scope["app"].state, "tables", None)
            if tables is not None and await tables.pass_on(scope, receive, send):
                return
        await self.app(scope, receive, send)


async def unreachable(websocket: WebSocket, table_id: str, error: Exception) -> None:
    """Close a new connection whose table could not be looked up: the database (or, in a
    cluster, Redis) is out of reach (its network cut, or it is down); the client tries again
    later, here or elsewhere."""
    log.warning("table %s: cannot serve a connection: %s", table_id, error)
    if websocket.client_state is WebSocketState.CONNECTING:
        await websocket.accept()
    why = CUT_OFF if isinstance(error, RedisError) else "the server cannot reach its database; reconnect"
    await websocket.close(TRY_AGAIN_LATER, why)


def _frames(websocket: WebSocket) -> wire.Receive:
    """A WebSocket's frames for :func:`wire.serve` (``None``: the peer is gone)."""

    async def receive() -> Mapping[str, Any] | None:
        frame = await websocket.receive()
        return None if frame["type"] == "websocket.disconnect" else frame

    return receive

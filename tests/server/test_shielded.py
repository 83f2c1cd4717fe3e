"""Issue 25's last gaps. HTTP changes (join, resign, rematch) run to their end when their request
is cancelled mid-save; a rematch is refused to a banned account and between accounts one of
which blocks the other; a moderator closes a rated table in play (nobody wins, nobody is rated,
both players told why).

No real path cancels an HTTP handler under ``kseri serve`` (uvicorn waits for requests in flight
on SIGTERM: no graceful-shutdown timeout is set; a client's disconnect does not cancel a route
without a ``BaseHTTPMiddleware``, and the stack has none), so the cancellation is made in-process:
the application through ``httpx.ASGITransport``, the request's task cancelled while its save is
held by a second SQLite connection holding the write lock. The rest runs through the real server
on loopback."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from playerkit import Browser, Player
from serverkit import Server
from test_moderation_routes import act, admin
from test_rated import paired, seek

from kseri.server import create_app
from kseri.server.registry import TableRegistry
from kseri.server.room import GameTable
from kseri.server.seats import rematch_token
from kseri.server.settings import ServerSettings


@asynccontextmanager
async def in_process(path: Path) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    """The application on an SQLite file, started as ``kseri serve`` starts it: the first seats
    deal at once (their players away), and no bot or stand-in plays (an hour's delay)."""
    settings = ServerSettings(f"sqlite+aiosqlite:///{path}", bot_delay=3600, grace=0.05,
                              ready_timeout=0.05, search_workers=0)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            yield app, client


@contextmanager
def write_locked(path: Path) -> Iterator[None]:
    """Hold the database's write lock from a second connection: the server's saves wait."""
    holder = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        holder.execute("BEGIN IMMEDIATE")
        yield
        holder.execute("ROLLBACK")
    finally:
        holder.close()


async def until(check: Callable[[], Awaitable[bool] | bool], seconds: float = 30) -> None:
    """Wait for ``check()`` to hold (generously: the machine may be loaded)."""
    deadline = time.monotonic() + seconds
    while True:
        held = check()
        if not isinstance(held, bool):
            held = await held
        if held:
            return
        assert time.monotonic() < deadline, "not reached in time"
        await asyncio.sleep(0.02)


async def cancelled_mid_save(path: Path, request: Awaitable[httpx.Response],
                             saving: Callable[[], bool]) -> None:
    """Send ``request`` while the database is locked; once ``saving()`` says its change is held
    at the save, cancel the request (as a dropped client or a stopping server would), then let
    the database go."""
    with write_locked(path):
        task = asyncio.ensure_future(request)
        await until(lambda: saving() or task.done())
        assert not task.done(), task.result()
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        assert task.cancelled()


async def stored_as_held(tables: TableRegistry, table: GameTable) -> bool:
    """Whether the table's log in memory is the one stored (each event committed was told)."""
    stored = await tables.store.load(table.id)
    assert stored is not None
    return [(e["seq"], e["kind"]) for e in stored.events] == [(e.seq, e.kind) for e in table.events]


def test_join_resign_and_rematch_run_to_their_end_when_cancelled_mid_save(tmp_path: Path) -> None:
    path = tmp_path / "kseri.db"

    async def scenario() -> None:
        async with in_process(path) as (app, client):
            tables: TableRegistry = app.state.tables
            created = (await client.post("/api/tables", json={"rules": "greek"})).json()
            table_id, token = created["table"]["id"], created["token"]
            table = await tables.get(table_id)
            assert table is not None

            # a join cancelled while its seat is being stored: the seat is taken, stored and told
            joining = client.post(f"/api/tables/{table_id}/join", json={"name": "Nikos"})
            await cancelled_mid_save(path, joining, lambda: table.seats[1].taken)
            await until(lambda: any(e.kind == "seat" and e.seat == 1 for e in table.events))
            await until(lambda: table.state.status == "playing")  # both away: dealt at once
            await until(lambda: stored_as_held(tables, table))

            # a resignation cancelled while it is being stored: the match ends, stored and told
            bearer = {"Authorization": f"Bearer {token}"}
            await cancelled_mid_save(path, client.post(f"/api/tables/{table_id}/resign", headers=bearer),
                                     lambda: table.state.status == "finished")
            await until(lambda: [e.kind for e in table.events[-2:]] == ["resign", "match-end"])
            await until(lambda: stored_as_held(tables, table))
            record = (await client.get(f"/api/tables/{table_id}/record")).json()
            assert record["resigned"] == 0 and record["winner"] == 1

            # a rematch cancelled while its table is being stored: opened, announced, seat kept
            await cancelled_mid_save(path, client.post(f"/api/tables/{table_id}/rematch", headers=bearer),
                                     table.lock.locked)
            await until(lambda: table.rematch is not None and table.events[-1].kind == "rematch")
            await until(lambda: stored_as_held(tables, table))
            assert table.rematch is not None
            rematch = await tables.get(table.rematch)
            assert rematch is not None and rematch.seat_of(rematch_token(token, rematch.id)) == 0
            again = await client.post(f"/api/tables/{table_id}/rematch", headers=bearer)
            assert again.status_code == 200, again.text
            assert (again.json()["table"]["id"], again.json()["seat"]) == (rematch.id, 0)

    asyncio.run(scenario())


def rematch(browser: Browser, table_id: str, token: str) -> httpx.Response:
    return browser.post(f"/api/tables/{table_id}/rematch", Authorization=f"Bearer {token}")


def test_a_rematch_is_refused_to_a_banned_player_and_a_blocked_pair(start_server: Callable[..., Server],
                                                                    sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni, nikos, moderator = Browser(server), Browser(server), Browser(server)
    for name, browser in (("Eleni", eleni), ("Nikos", nikos), ("Moira", moderator)):
        browser.sign_up(name)
    assert admin("grant-moderator", "Moira", database_url=sqlite_url).returncode == 0
    created = eleni.post("/api/tables", {"rules": "greek"}).json()
    table_id, eleni_token = created["table"]["id"], created["token"]
    joined = nikos.post(f"/api/tables/{table_id}/join", {})
    assert joined.status_code == 200, joined.text
    nikos_token = joined.json()["token"]

    async def play_then_resign() -> None:
        players = [await Player.connect(browser, table_id) for browser in (eleni, nikos)]
        await asyncio.gather(*(player.play_once() for player in players))
        resigned = nikos.post(f"/api/tables/{table_id}/resign", Authorization=f"Bearer {nikos_token}")
        assert resigned.status_code == 200, resigned.text
        for player in players:
            await player.close()

    asyncio.run(play_then_resign())
    assert act(moderator, "Nikos", "ban", "threats").status_code == 200
    banned = rematch(nikos, table_id, nikos_token)
    assert banned.status_code == 403, banned.text
    assert banned.json()["error"] == {"code": "banned", "message": "you are banned: threats"}
    assert act(moderator, "Nikos", "unban", "appeal heard").status_code == 200

    assert eleni.post("/api/blocks", {"username": "Nikos"}).status_code == 201
    for browser, token in ((nikos, nikos_token), (eleni, eleni_token)):  # either side of the block
        blocked = rematch(browser, table_id, token)
        assert blocked.status_code == 403, blocked.text
        assert blocked.json()["error"]["code"] == "blocked"
    assert httpx.get(f"{server.http}/api/tables/{table_id}").json()["rematch"] is None  # none opened
    assert eleni.http.delete("/api/blocks/Nikos", headers={"X-CSRF-Token": eleni.csrf}).status_code == 200
    allowed = rematch(nikos, table_id, nikos_token)
    assert allowed.status_code == 200, allowed.text
    assert allowed.json()["seat"] == 1


def test_a_moderator_closes_a_rated_table_in_play(start_server: Callable[..., Server],
                                                  sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni, nikos, moderator = Browser(server), Browser(server), Browser(server)
    for name, browser in (("Eleni", eleni), ("Nikos", nikos), ("Moira", moderator)):
        browser.sign_up(name)
    assert admin("grant-moderator", "Moira", database_url=sqlite_url).returncode == 0
    first, second = seek(eleni), seek(nikos)
    table_id: str = paired(eleni, first)["table"]
    paired(nikos, second)
    why = "insults at the table"  # the moderator's reason, stripped

    async def play_then_close() -> list[dict[str, Any]]:
        players = [await Player.connect(browser, table_id) for browser in (eleni, nikos)]
        await asyncio.gather(*(player.play_once() for player in players))  # both played: rateable
        closing = await asyncio.to_thread(moderator.post, f"/api/moderation/tables/{table_id}/close",
                                          {"reason": " insults at the table "})
        assert closing.status_code == 200, closing.text
        assert closing.json() == {"closed": table_id}
        told = []
        for player in players:
            while True:
                message = await player.receive()
                if message["type"] == "state" and (message.get("event") or {}).get("kind") == "match-end":
                    told.append(message)
                    break
        for player in players:
            await player.close()
        return told

    for message in asyncio.run(play_then_close()):
        assert message["event"] == {"kind": "match-end", "winner": None, "closed": why}
        assert message["table"]["status"] == "finished" and message["table"]["winner"] is None
    again = moderator.post(f"/api/moderation/tables/{table_id}/close", {"reason": "again"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "finished"

    deadline = time.monotonic() + 30
    while (ratings := httpx.get(f"{server.http}/api/tables/{table_id}/ratings").json())["status"] in (
            "pending", "playing"):
        assert time.monotonic() < deadline, ratings
        time.sleep(0.1)
    assert (ratings["status"], ratings["reason"]) == ("unrated", "closed")
    for name in ("Eleni", "Nikos"):  # no rating, no result: not a draw, not a loss
        profile = httpx.get(f"{server.http}/api/players/{name}").json()
        assert profile["ratings"] == [] and profile["statistics"]["games"] == 0, (name, profile)
        for result in ("win", "loss", "draw"):
            listed = httpx.get(f"{server.http}/api/players/{name}/games", params={"result": result})
            assert listed.text == "", (name, result)
    record = httpx.get(f"{server.http}/api/tables/{table_id}/record").json()
    assert record["complete"] is False and record["winner"] is None and "resigned" not in record
    log = moderator.http.get("/api/moderation/log").json()["log"]
    latest = (log[0]["by"], log[0]["action"], log[0]["reason"])
    assert latest == ("Moira", "close-table", "insults at the table")

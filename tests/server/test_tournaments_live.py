"""A tournament's page data live over its WebSocket (``/ws/tournaments/{id}``), through the real
server on loopback: each change (a join, the start, a round's pairings and tables, a result, the
end) is pushed to every viewer without asking, each viewer's own table included."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import websockets
from playerkit import Browser, Player
from serverkit import Server
from test_tournaments import create, enter, show

Json = dict[str, Any]


class Viewer:
    """A tournament page's live feed: the latest data pushed, for one browser's account."""

    def __init__(self, connection: websockets.ClientConnection) -> None:
        self.connection = connection
        self.pushed: list[Json] = []

    @classmethod
    async def connect(cls, browser: Browser, tournament_id: str) -> Viewer:
        headers = {"Cookie": f"kseri_session={browser.session}"} if browser.session else {}
        url = browser.server.ws(tournament_id).replace("/ws/tables/", "/ws/tournaments/")
        return cls(await websockets.connect(url, additional_headers=headers))

    async def until(self, check: Callable[[Json], bool], timeout: float = 60) -> Json:
        """The first data pushed (or pushed already) for which ``check`` holds."""
        async with asyncio.timeout(timeout):
            while not self.pushed or not check(self.pushed[-1]):
                self.pushed.append(json.loads(await self.connection.recv()))
        return self.pushed[-1]


async def live_tournament(server: Server) -> None:
    ana, ben = enter(server, ["ana", "ben"])
    tid = create(ana, rounds=1)["id"]
    guest = Browser(server)
    seen = await Viewer.connect(ana, tid), await Viewer.connect(ben, tid), await Viewer.connect(guest, tid)
    first = await seen[0].until(lambda d: True)
    assert first == await asyncio.to_thread(show, ana, tid), "the first push is the page's data"
    assert first["entrants"] == 1 and first["joined"] and first["organiser"]
    assert (await seen[1].until(lambda d: True))["joined"] is False

    assert (await asyncio.to_thread(ben.post, f"/api/tournaments/{tid}/join")).status_code == 204
    for viewer in seen:
        assert (await viewer.until(lambda d: d["entrants"] == 2))["players"][1]["username"] == "ben"
    assert (await seen[1].until(lambda d: d["joined"]))["organiser"] is False

    assert (await asyncio.to_thread(ana.post, f"/api/tournaments/{tid}/start")).status_code == 204
    tables = [(await viewer.until(lambda d: d["my_table"] is not None))["my_table"] for viewer in seen[:2]]
    assert tables[0] == tables[1], "each player gets their table pushed"
    paired = await seen[2].until(lambda d: d["status"] == "playing" and bool(d["pairings"])
                                 and d["pairings"][0]["games"][0]["table"] is not None)
    assert paired["my_table"] is None and paired["pairings"][0]["games"][0]["table"] == tables[0]

    players = [await Player.connect(b, tables[0]) for b in (ana, ben)]
    try:
        finals = await asyncio.gather(*(p.play_to_the_end() for p in players))
    finally:
        for player in players:
            await player.close()
    over = [await viewer.until(lambda d: d["status"] == "finished") for viewer in seen]
    assert over[0]["pairings"][0]["games"][0]["points"] == finals[0]["table"]["totals"]
    assert over[0]["standings"] == over[2]["standings"] and over[0]["my_table"] is None
    assert sum(e["score"] for e in over[2]["standings"]) == 1
    assert over[0]["secret"] is not None
    for viewer in seen:
        await viewer.connection.close()


async def missing(server: Server) -> None:
    viewer = await Viewer.connect(Browser(server), "no-such-one")
    assert (await viewer.until(lambda d: True))["error"]["code"] == "no-such-tournament"
    async with asyncio.timeout(30):
        await viewer.connection.wait_closed()


def test_standings_pairings_and_tables_pushed_live(start_server: Callable[..., Server],
                                                   sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    asyncio.run(live_tournament(server))
    asyncio.run(missing(server))

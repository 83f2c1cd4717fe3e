"""Issue 19, newcomer 8: guests seek casual quick games, and a seek in the lobby's list can be
accepted (paired at once), on a real server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser
from serverkit import Client, Server, first_card


def guest_seek(server: Server, **body: Any) -> httpx.Response:
    return httpx.post(f"{server.http}/api/seeks", json={"family": "greek", "clock": 30, **body})


def status(server: Server, seek_id: str, key: str, wait: float = 10) -> dict[str, Any]:
    answer = httpx.get(f"{server.http}/api/seeks/{seek_id}", params={"wait": wait},
                       headers={"X-Seek-Key": key}, timeout=wait + 10)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_guests_pair_casually_and_a_listed_seek_is_accepted(start_server: Callable[..., Server],
                                                             sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    rated = guest_seek(server)
    assert rated.status_code == 401, rated.text  # a guest's game is casual
    assert "casual" in rated.json()["error"]["message"]

    ana = guest_seek(server, casual=True, name="Ana")
    assert ana.status_code == 201, ana.text
    ana_seek = ana.json()
    assert ana_seek["status"] == "waiting" and ana_seek["key"]
    listed = httpx.get(f"{server.http}/api/seeks").json()["seeks"]
    shown = [(s["username"], s["rated"], s["guest"], s["rating"]) for s in listed]
    assert shown == [("Ana", False, True, None)]
    # the seek is held by its key alone
    assert httpx.get(f"{server.http}/api/seeks/{ana_seek['id']}").status_code == 401
    assert httpx.get(f"{server.http}/api/seeks/{ana_seek['id']}",
                     headers={"X-Seek-Key": "not the key"}).status_code == 404

    eleni = Browser(server)
    eleni.sign_up("Eleni")
    eleni_seek = eleni.post("/api/seeks", {"family": "greek", "clock": 30}).json()
    other_kind = guest_seek(server, casual=True, name="Bo", accept=eleni_seek["id"])
    assert other_kind.status_code == 409 and other_kind.json()["error"]["code"] == "other-kind"
    gone = guest_seek(server, casual=True, name="Bo", accept="no-such-seek")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "no-such-seek"

    bo = guest_seek(server, casual=True, name="Bo", accept=ana_seek["id"])
    assert bo.status_code == 201, bo.text
    seats = [status(server, seek["id"], seek["key"]) for seek in (ana_seek, bo.json())]
    assert [seat["status"] for seat in seats] == ["paired", "paired"]
    table_id = seats[0]["table"]
    assert seats[1]["table"] == table_id and {seat["seat"] for seat in seats} == {0, 1}
    table = httpx.get(f"{server.http}/api/tables/{table_id}").json()
    assert table["casual"] is True and sorted(s["name"] for s in table["seats"]) == ["Ana", "Bo"]
    assert httpx.get(f"{server.http}/api/tables/{table_id}/ratings").json() == {"rated": False}

    async def guests_play() -> None:  # both seats play with their tokens
        clients = [await Client.connect(server, table_id, seat["token"]) for seat in seats]
        assert sorted(client.seat for client in clients) == [0, 1]

        def two_plays(state: dict[str, Any]) -> bool:
            return bool(state["view"]) and len(state["view"]["plays"]) >= 2

        await asyncio.gather(*(client.play_until(two_plays, first_card) for client in clients))
        for client in clients:
            await client.close()

    asyncio.run(guests_play())

    nikos = Browser(server)  # an account accepts a rated seek: paired at once, rated
    nikos.sign_up("Nikos")
    accepted = nikos.post("/api/seeks", {"family": "greek", "clock": 30, "accept": eleni_seek["id"]})
    assert accepted.status_code == 201, accepted.text
    paired = nikos.http.get(f"/api/seeks/{accepted.json()['id']}", params={"wait": 10}).json()
    assert paired["status"] == "paired"
    ratings = httpx.get(f"{server.http}/api/tables/{paired['table']}/ratings").json()
    assert ratings["rated"] is True and ratings["status"] == "playing"
    assert sorted(seat["username"] for seat in ratings["seats"]) == ["Eleni", "Nikos"]

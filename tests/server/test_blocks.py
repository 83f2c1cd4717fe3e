"""Blocks enforced through the real server on loopback: a blocked player cannot be paired with
the blocker in quick games (nor accept their seek), join a table where the blocker sits (one
the blocker created), or watch it; the challenge check refuses them; blocks are listed and
undone (``/api/blocks``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
import websockets
from playerkit import Browser, Player
from serverkit import Server
from test_moderation import on_database

from kseri.server import moderation


def csrf(browser: Browser) -> dict[str, str]:
    return {"X-CSRF-Token": browser.csrf}


def casual_seek(browser: Browser, **body: Any) -> Any:
    return browser.post("/api/seeks", {"family": "greek", "clock": 20, "casual": True, **body})


def status(browser: Browser, seek_id: str, wait: float = 0) -> dict[str, Any]:
    answer: dict[str, Any] = browser.http.get(f"/api/seeks/{seek_id}", params={"wait": wait}).json()
    return answer


def test_a_blocked_player_cannot_pair_join_or_watch_until_unblocked(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni, nikos, maria, sofia = (Browser(server) for _ in range(4))
    ids = {name: browser.sign_up(name)["id"] for name, browser in
           (("Eleni", eleni), ("Nikos", nikos), ("Maria", maria), ("Sofia", sofia))}

    blocked = eleni.post("/api/blocks", {"username": "nikos"})
    assert blocked.status_code == 201 and blocked.json() == {"blocks": ["Nikos"]}
    assert eleni.http.get("/api/blocks").json() == {"blocks": ["Nikos"]}
    assert nikos.http.get("/api/blocks").json() == {"blocks": []}
    unknown = eleni.post("/api/blocks", {"username": "Ghost"})
    assert unknown.status_code == 404 and "there is no account called 'Ghost'" in unknown.text
    assert eleni.post("/api/blocks", {"username": "Eleni"}).json()["error"]["code"] == "self"
    assert eleni.post("/api/blocks", {"username": "Maria"}, csrf=False).status_code == 403

    # quick games: the two are never paired; a third player is paired with the one waiting first
    first = casual_seek(eleni).json()["id"]
    second = casual_seek(nikos).json()["id"]
    third = casual_seek(maria).json()["id"]
    seated = status(maria, third, wait=10)
    assert seated["status"] == "paired", seated
    assert status(eleni, first, wait=10)["table"] == seated["table"]
    assert status(nikos, second)["status"] == "waiting"
    # ... nor may one accept the other's seek from the lobby
    again = casual_seek(eleni).json()["id"]
    accepting = casual_seek(nikos, accept=again)
    assert accepting.status_code == 403 and accepting.json()["error"]["code"] == "blocked"

    # a table the blocker created: the blocked player may not join it, others may
    created = eleni.post("/api/tables", {"rules": "greek"})
    assert created.status_code == 201, created.text
    table_id = created.json()["table"]["id"]
    refused = nikos.post(f"/api/tables/{table_id}/join", {"name": "Nikos"})
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == {"code": "blocked", "message": "you cannot play or watch this player: "
                                       "one of you blocks the other"}
    joined = maria.post(f"/api/tables/{table_id}/join", {"name": "Maria"})
    assert joined.status_code == 200, joined.text

    async def watch(browser: Browser) -> int | None:
        """The seat a spectator's connection is welcomed with, or raises when refused."""
        player = await Player.connect(browser, table_id)
        await player.close()
        return player.seat

    # nor watch it, while another account may
    with pytest.raises(websockets.InvalidStatus):
        asyncio.run(watch(nikos))
    assert asyncio.run(watch(sofia)) is None
    assert asyncio.run(watch(eleni)) == 0  # the blocker's own seat, by the session

    # the challenge check ("challenges" calls it before a challenge between two accounts)
    with pytest.raises(moderation.ModerationError, match="one of you blocks the other"):
        on_database(sqlite_url, lambda store: moderation.check_may_meet(store, ids["Nikos"], [ids["Eleni"]]))
    on_database(sqlite_url, lambda store: moderation.check_may_meet(store, ids["Nikos"], [ids["Maria"]]))

    undone = eleni.http.delete("/api/blocks/Nikos", headers=csrf(eleni))
    assert undone.status_code == 200 and undone.json() == {"blocks": []}
    assert asyncio.run(watch(nikos)) is None
    on_database(sqlite_url, lambda store: moderation.check_may_meet(store, ids["Nikos"], [ids["Eleni"]]))
    for browser in (eleni, nikos, maria, sofia):
        browser.close()

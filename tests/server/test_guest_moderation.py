"""Blocks and bans of guests, and bans of addresses, through the real server on loopback: an
account blocks a guest it met at a table, after which the guest (known by its cookie) cannot be
paired with it, join its tables or watch them, until unblocked; a moderator bans a guest (by
the seat it held) or an address (as the server sees it behind its trusted proxy), on the page's
routes and with ``kseri admin``: a banned guest or address cannot start a guest session, sign
up, sit or seek, and is told why and until when; lifting the ban lets it in again. Each action
is logged."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import websockets
from playerkit import Browser
from serverkit import Server
from test_blocks import casual_seek, status
from test_moderation_routes import admin

from kseri.server.guests import GUEST_COOKIE


def guest(server: Server, address: str | None = None) -> Browser:
    """A browser without an account (from ``address``, as the trusted proxy says, when given)."""
    browser = Browser(server)
    if address is not None:
        browser.http.headers["X-Forwarded-For"] = address
    return browser


async def watch(browser: Browser, table_id: str) -> int | None:
    """The seat a spectator's connection (with every cookie of its browser) is welcomed with;
    raises ``websockets.InvalidStatus`` when refused."""
    cookies = "; ".join(f"{name}={value}" for name, value in browser.http.cookies.items())
    async with websockets.connect(browser.server.ws(table_id), additional_headers={"Cookie": cookies}) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": None}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 30))
        assert welcome["type"] == "welcome", welcome
        seat: int | None = welcome["seat"]
        return seat


def refused(answer: httpx.Response, status_code: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status_code, answer.text
    error: dict[str, Any] = answer.json()["error"]
    assert error["code"] == code, error
    return error


def test_an_account_blocks_a_guest_it_met_who_then_cannot_pair_join_or_watch_until_unblocked(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni, maria = Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    maria.sign_up("Maria")
    gus, other = guest(server), guest(server)

    # they meet at a table the guest opened: the guest's cookie is given with its seat
    opened = gus.post("/api/tables", {"rules": "greek", "seats": [{"kind": "human", "name": "Gus"},
                                                                   {"kind": "human"}]})
    assert opened.status_code == 201, opened.text
    assert gus.http.cookies.get(GUEST_COOKIE)
    met = opened.json()["table"]["id"]
    assert eleni.post(f"/api/tables/{met}/join", {"name": "Eleni"}).status_code == 200

    refused(maria.post("/api/blocks/seats", {"table": met, "seat": 0}), 403, "not-met")
    refused(eleni.post("/api/blocks/seats", {"table": met, "seat": 1}), 409, "self")
    refused(eleni.post("/api/blocks/seats", {"table": met, "seat": 4}), 404, "unknown-seat")
    refused(eleni.post("/api/blocks/seats", {"table": "nothing", "seat": 0}), 404, "unknown-table")
    assert eleni.post("/api/blocks/seats", {"table": met, "seat": 0}, csrf=False).status_code == 403
    blocked = eleni.post("/api/blocks/seats", {"table": met, "seat": 0})
    assert blocked.status_code == 201 and blocked.json() == {"blocked": {"kind": "guest", "name": "Gus"}}
    listed = eleni.http.get("/api/blocks/guests").json()["guests"]
    assert [(entry["name"], entry["table"]) for entry in listed] == [("Gus", met)]
    assert eleni.http.get("/api/blocks").json() == {"blocks": []}  # the accounts blocked: none
    assert eleni.post("/api/blocks/seats", {"table": met, "seat": 0}).status_code == 201  # again: one block
    assert len(eleni.http.get("/api/blocks/guests").json()["guests"]) == 1

    # quick games: the two are never paired; another guest is paired with the one waiting first
    first = casual_seek(eleni).json()["id"]
    second = casual_seek(gus, name="Gus").json()
    third = casual_seek(other).json()
    seated = other.http.get(f"/api/seeks/{third['id']}", params={"wait": 10},
                            headers={"X-Seek-Key": third["key"]}).json()
    assert seated["status"] == "paired", seated
    assert status(eleni, first, wait=10)["table"] == seated["table"]
    waiting = gus.http.get(f"/api/seeks/{second['id']}", headers={"X-Seek-Key": second["key"]}).json()
    assert waiting["status"] == "waiting"
    assert gus.http.delete(f"/api/seeks/{second['id']}", headers={"X-Seek-Key": second["key"]}).is_success
    # ... nor may the guest accept her seek from the lobby
    again = casual_seek(eleni).json()["id"]
    refused(casual_seek(gus, accept=again), 403, "blocked")

    # a table she opened: the guest may not join it, another guest may; nor may the guest watch it
    created = eleni.post("/api/tables", {"rules": "greek"}).json()["table"]["id"]
    error = refused(gus.post(f"/api/tables/{created}/join", {"name": "Gus"}), 403, "blocked")
    assert error["message"] == "you cannot play or watch this player: one of you blocks the other"
    with pytest.raises(websockets.InvalidStatus):
        asyncio.run(watch(gus, created))
    assert asyncio.run(watch(other, created)) is None
    # ... and she may not join one the guest opened
    his = gus.post("/api/tables", {"rules": "greek"}).json()["table"]["id"]
    refused(eleni.post(f"/api/tables/{his}/join", {"name": "Eleni"}), 403, "blocked")
    assert maria.post(f"/api/tables/{his}/join", {"name": "Maria"}).status_code == 200

    # unblocked: the guest may accept her seek, join her table and watch it
    undone = eleni.http.delete(f"/api/blocks/guests/{listed[0]['id']}", headers={"X-CSRF-Token": eleni.csrf})
    assert undone.status_code == 200 and undone.json() == {"guests": []}
    refused(eleni.http.delete(f"/api/blocks/guests/{listed[0]['id']}", headers={"X-CSRF-Token": eleni.csrf}),
            404, "unknown-block")
    assert asyncio.run(watch(gus, created)) is None
    assert gus.post(f"/api/tables/{created}/join", {"name": "Gus"}).status_code == 200
    accepted = casual_seek(gus, accept=again)
    assert accepted.status_code == 201, accepted.text
    for browser in (eleni, maria, gus, other):
        browser.close()


def test_moderators_ban_a_guest_and_an_address_which_are_refused_until_the_ban_is_lifted(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, trusted_proxy="127.0.0.1")
    moderator = Browser(server)
    moderator.sign_up("Sofia")
    assert admin("grant-moderator", "Sofia", database_url=sqlite_url).returncode == 0
    gus = guest(server, "203.0.113.7")
    opened = gus.post("/api/tables", {"rules": "greek", "seats": [{"kind": "human", "name": "Gus"},
                                                                   {"kind": "human"}]})
    table_id = opened.json()["table"]["id"]

    def sits_and_seeks(browser: Browser) -> list[httpx.Response]:
        return [browser.post("/api/tables", {"rules": "greek"}),
                browser.post(f"/api/tables/{table_id}/join", {"name": "Gus"}),
                casual_seek(browser)]

    # a guest banned by the seat it held: refused, told why and until when; another guest at
    # the same address is not
    assert guest(server).post("/api/moderation/bans", {"kind": "guest", "table": table_id, "seat": 0,
                                                       "reason": "x"}).status_code == 401
    refused(moderator.post("/api/moderation/bans", {"kind": "guest", "table": table_id, "seat": 1,
                                                    "reason": "spam"}), 409, "no-player")
    banned = moderator.post("/api/moderation/bans", {"kind": "guest", "table": table_id, "seat": 0,
                                                     "reason": "spam in the lobby", "days": 2})
    assert banned.status_code == 201, banned.text
    assert banned.json()["name"] == "Gus" and banned.json()["key"].startswith("guest-")
    for answer in sits_and_seeks(gus):
        error = refused(answer, 403, "banned")
        assert error["message"].startswith("you are banned until 20")
        assert error["message"].endswith(" UTC: spam in the lobby")
    neighbour = guest(server, "203.0.113.7")
    assert neighbour.post("/api/tables", {"rules": "greek"}).status_code == 201
    bans = moderator.http.get("/api/moderation/bans").json()["bans"]
    assert [(b["kind"], b["name"], b["table"], b["seat"], b["reason"]) for b in bans] == [
        ("guest", "Gus", table_id, 0, "spam in the lobby")]
    lifted = moderator.post("/api/moderation/bans/lift", {"kind": "guest", "key": bans[0]["key"],
                                                          "reason": "appeal heard"})
    assert lifted.status_code == 200, lifted.text
    assert gus.post("/api/tables", {"rules": "greek"}).status_code == 201

    # an address banned on the page: every guest there (a new one too) and sign-ups refused,
    # other addresses and the moderator served
    refused(moderator.post("/api/moderation/bans", {"kind": "address", "address": "not an address",
                                                    "reason": "x"}), 422, "bad-address")
    flood = {"kind": "address", "address": "203.0.113.7", "reason": "a flood of tables", "days": 1}
    assert moderator.post("/api/moderation/bans", flood).status_code == 201
    newcomer = guest(server, "203.0.113.7")
    for browser in (gus, newcomer):
        for answer in sits_and_seeks(browser):
            error = refused(answer, 403, "banned")
            assert error["message"].startswith("this address is banned until 20")
            assert error["message"].endswith(" UTC: a flood of tables")
    assert newcomer.http.cookies.get("kseri_guest") is None  # no guest session started
    signup = newcomer.post("/api/account/signup", {"username": "Newbie", "password": "correct horse battery"})
    refused(signup, 403, "banned")
    elsewhere = guest(server, "198.51.100.2")
    assert elsewhere.post("/api/tables", {"rules": "greek"}).status_code == 201
    assert moderator.post("/api/tables", {"rules": "greek"}).status_code == 201
    assert moderator.post("/api/moderation/bans/lift", {"kind": "address", "key": "203.0.113.7",
                                                        "reason": "the flood is over"}).status_code == 200
    assert newcomer.post("/api/tables", {"rules": "greek"}).status_code == 201

    # the same with kseri admin: ban-address, listed by bans, unban-address
    cli = admin("ban-address", "203.0.113.7", "--reason", "scraping", "--days", "3", database_url=sqlite_url)
    assert cli.returncode == 0, cli.stderr
    assert "203.0.113.7: banned until 20" in cli.stdout
    listed = admin("bans", database_url=sqlite_url)
    assert "address 203.0.113.7" in listed.stdout and "scraping" in listed.stdout, listed.stdout
    error = refused(newcomer.post("/api/tables", {"rules": "greek"}), 403, "banned")
    assert error["message"].endswith(": scraping")
    assert admin("unban-address", "203.0.113.7", "--reason", "done", database_url=sqlite_url).returncode == 0
    assert newcomer.post("/api/tables", {"rules": "greek"}).status_code == 201
    again = admin("unban-address", "203.0.113.7", "--reason", "done", database_url=sqlite_url)
    assert again.returncode == 1 and "no ban of the address 203.0.113.7" in again.stderr

    log = moderator.http.get("/api/moderation/log").json()["log"]
    assert [(e["by"], e["action"], e["reason"]) for e in log[:6]] == [
        ("the operator", "unban-address", "done"), ("the operator", "ban-address", "scraping"),
        ("Sofia", "unban-address", "the flood is over"), ("Sofia", "ban-address", "a flood of tables"),
        ("Sofia", "unban-guest", "appeal heard"), ("Sofia", "ban-guest", "spam in the lobby")]
    assert log[3]["data"]["address"] == "203.0.113.7" and log[3]["data"]["until"] > 0
    for browser in (moderator, gus, neighbour, newcomer, elsewhere):
        browser.close()

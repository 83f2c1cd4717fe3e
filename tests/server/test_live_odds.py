"""Live win odds through a real server on loopback: a player's in a casual game against the
computer (on its turn, from its own view), a spectator's, the same search answered twice, and the
refusals: a rated table, a player facing another person, a token that holds no seat."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser, Player
from serverkit import Server, bot, human
from test_puzzles import error
from test_rated import paired, seek


async def my_turn(player: Player) -> dict[str, Any]:
    """Ready until the player's turn comes; the state then."""
    while True:
        message = await player.receive(60)
        if message["type"] != "state":
            continue
        view = message["view"]
        if view is None or view["phase"] == "round-over":
            await player.send({"type": "ready"})
        elif view["turn"] == player.seat:
            return message


def chances(odds: dict[str, Any]) -> None:
    for key in ("round_odds", "match_odds"):
        estimate, low, high = odds[key]
        assert 0 <= low <= estimate <= high <= 1


def test_a_player_against_the_computer_and_a_spectator_see_live_odds(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, bot_delay="0")
    created = server.create([human("Eleni"), bot("greedy")], rules="greek")
    table, token = created["table"]["id"], created["token"]
    url = f"{server.http}/api/tables/{table}/odds"
    error(httpx.get(url), 409, "not-playing")  # nothing dealt yet

    async def play() -> tuple[dict[str, Any], httpx.Response, httpx.Response, httpx.Response, httpx.Response]:
        player = await Player.connect(Browser(server), table, token)
        state = await my_turn(player)
        async with httpx.AsyncClient(timeout=120) as client:
            mine = await client.get(url, headers={"Authorization": f"Bearer {token}"})
            again = await client.get(url, headers={"Authorization": f"Bearer {token}"})
            watched = await client.get(url)
            forged = await client.get(url, headers={"Authorization": "Bearer not-a-token"})
        await player.close()
        return state, mine, again, watched, forged

    state, mine, again, watched, forged = asyncio.run(play())
    assert mine.status_code == 200, mine.text
    odds = mine.json()
    assert odds["live"] and not odds["spectator"] and odds["seat"] == 0 and odds["side"] == 0
    assert odds["seq"] == state["seq"] and odds["play"] == len(state["view"]["plays"])
    chances(odds)
    assert again.json() == odds  # one search per state and viewer
    assert watched.status_code == 200, watched.text
    seen = watched.json()
    assert seen["spectator"] and seen["seat"] == 0 and seen["seq"] == state["seq"]
    chances(seen)
    error(forged, 401, "bad-token")


def test_no_live_odds_for_a_player_facing_a_person(start_server: Callable[..., Server],
                                                   sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    created = server.create([human("Eleni"), human("Nikos")], rules="greek")
    table, token = created["table"]["id"], created["token"]
    joined = httpx.post(f"{server.http}/api/tables/{table}/join", json={"name": "Nikos"})
    assert joined.status_code == 200, joined.text
    for held in (token, joined.json()["token"]):
        message = error(httpx.get(f"{server.http}/api/tables/{table}/odds",
                                  headers={"Authorization": f"Bearer {held}"}), 403, "human-opponent")
        assert "advice" in message


def test_never_live_odds_in_a_rated_game(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    eleni, nikos = Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    first, second = seek(eleni), seek(nikos)
    table = paired(eleni, first)["table"]
    paired(nikos, second)
    assert "rated" in error(httpx.get(f"{server.http}/api/tables/{table}/odds"), 403, "rated")  # a spectator
    error(eleni.http.get(f"/api/tables/{table}/odds"), 403, "rated")  # a player, by session
    error(httpx.get(f"{server.http}/api/tables/{table}/odds", params={"round": 0}), 422, "missing-field")


def test_new_live_odds_searches_are_rate_limited(start_server: Callable[..., Server],
                                                 sqlite_url: str) -> None:
    server = start_server(sqlite_url, bot_delay="0", limits="hints_per_minute=1")
    created = server.create([human("Eleni"), bot("greedy")], rules="greek")
    table, token = created["table"]["id"], created["token"]
    url = f"{server.http}/api/tables/{table}/odds"

    async def play() -> tuple[list[httpx.Response], httpx.Response]:
        player = await Player.connect(Browser(server), table, token)
        turn = await my_turn(player)
        async with httpx.AsyncClient(timeout=120) as client:
            first = [await client.get(url) for _ in range(3)]  # one search, answered three times
            state = await my_turn_after_playing(player, turn)
            assert state["seq"] != first[0].json()["seq"]
            throttled = await client.get(url)
        await player.close()
        return first, throttled

    first, throttled = asyncio.run(play())
    assert [answer.status_code for answer in first] == [200, 200, 200]
    assert first[0].json() == first[1].json() == first[2].json()
    assert "a minute" in error(throttled, 429, "throttled")
    assert throttled.headers.get("retry-after")


async def my_turn_after_playing(player: Player, state: dict[str, Any]) -> dict[str, Any]:
    """Play the first card of the hand in ``state`` (the player's turn), then wait for its next turn."""
    await player.send({"type": "play", "card": state["view"]["hand"][0], "seq": state["seq"]})
    while True:
        message = await my_turn(player)
        if message["seq"] > state["seq"]:
            return message

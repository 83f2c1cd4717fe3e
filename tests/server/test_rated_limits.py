"""Issue 19: quick pairing within the server's limits, and ratings that cannot be farmed, on a
real server."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from playerkit import Browser, Player
from serverkit import Server, bot, human
from test_rated import paired, rating_of, seek

from kseri.server.ratings import REPEAT_GAMES


def test_seeks_spend_the_tables_allowance_and_an_account_plays_one_rated_game_at_a_time(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits="tables_per_minute=1,tables_burst=5,seeks_per_minute=3")
    eleni, nikos, maria = Browser(server), Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    maria.sign_up("Maria")
    for _ in range(3):  # each replaces the one before
        seek(maria, "pisti", 30)
    refused = maria.post("/api/seeks", {"family": "pisti", "clock": 30})
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "throttled" and "seeks" in refused.json()["error"]["message"]
    assert int(refused.headers["Retry-After"]) >= 1
    first, second = seek(eleni), seek(nikos)
    table = paired(eleni, first)["table"]
    assert paired(nikos, second)["table"] == table
    again = eleni.post("/api/seeks", {"family": "greek", "clock": 60})
    assert again.status_code == 409, again.text
    assert again.json()["error"]["code"] == "in-game" and again.json()["error"]["table"] == table
    # five seeks from this address spent its five tables: it may open no other table now
    created = eleni.post("/api/tables", {"rules": "greek", "seats": [human(), bot()]})
    assert created.status_code == 429, created.text
    assert created.json()["error"]["code"] == "throttled"


def paired_later(browser: Browser, seek_id: str) -> dict[str, Any]:
    """Paired, however far apart the ratings (the range widens while waiting)."""
    status: dict[str, Any] = browser.http.get(f"/api/seeks/{seek_id}", params={"wait": 30}).json()
    assert status["status"] == "paired", status
    return status


def wait_for_log(server: Server, text: str, count: int = 1) -> None:
    deadline = time.monotonic() + 20
    while server.output().count(text) < count:
        assert time.monotonic() < deadline, f"the server did not log {text!r} {count} times"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_seat_that_never_played_aborts_and_a_pair_is_rated_three_times_an_hour(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, grace="1")
    eleni, nikos = Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")

    async def game(nikos_plays: bool) -> dict[str, Any]:
        first, second = seek(eleni), seek(nikos)
        mine, _ = paired_later(eleni, first), paired_later(nikos, second)
        player = await Player.connect(eleni, mine["table"])
        playing = asyncio.create_task(player.play_to_the_end())
        if nikos_plays:
            leaver = await Player.connect(nikos, mine["table"])
            await leaver.play_once()
            await leaver.close()
        final = await playing
        await player.close()
        assert final["event"]["forfeit"] == 1 - mine["seat"]
        return final

    asyncio.run(game(nikos_plays=False))  # Nikos never comes: aborted, rated for neither
    wait_for_log(server, "never played, the match is aborted, not rated")
    for name in ("Eleni", "Nikos"):
        assert httpx.get(f"{server.http}/api/players/{name}").json()["ratings"] == []
    for played in range(1, REPEAT_GAMES + 1):
        asyncio.run(game(nikos_plays=True))
        assert wait_for_games(server, "Eleni", played)["games"] == played
    asyncio.run(game(nikos_plays=True))  # the same pair a fourth time within the hour: not rated
    wait_for_log(server, "rated together")
    for name in ("Eleni", "Nikos"):
        assert rating_of(server, name)["games"] == REPEAT_GAMES


def wait_for_games(server: Server, username: str, games: int) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        ratings = httpx.get(f"{server.http}/api/players/{username}").json()["ratings"]
        if ratings and ratings[0]["games"] >= games:
            entry: dict[str, Any] = ratings[0]
            return entry
        assert time.monotonic() < deadline, f"{username} was not rated {games} times"
        time.sleep(0.05)

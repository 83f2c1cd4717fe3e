"""Rated quick games on a real server: pairing, play with the session cookie, ratings after the
match (and after an abandoned one), profiles and the leaderboard."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser, Player
from serverkit import Server

from kseri.server.ratings import Rating, rate, side_ranks


def seek(browser: Browser, family: str = "greek", clock: int = 60) -> str:
    answer = browser.post("/api/seeks", {"family": family, "clock": clock})
    assert answer.status_code == 201, answer.text
    assert answer.json()["status"] == "waiting"
    seek_id: str = answer.json()["id"]
    return seek_id


def paired(browser: Browser, seek_id: str) -> dict[str, Any]:
    status: dict[str, Any] = browser.http.get(f"/api/seeks/{seek_id}", params={"wait": 10}).json()
    assert status["status"] == "paired", status
    return status


def rating_of(server: Server, username: str, family: str = "greek") -> dict[str, Any]:
    profile = httpx.get(f"{server.http}/api/players/{username}").json()
    entry: dict[str, Any] = next(r for r in profile["ratings"] if r["family"] == family)
    return entry


def wait_for_rating(server: Server, username: str) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        profile = httpx.get(f"{server.http}/api/players/{username}").json()
        if profile["ratings"]:
            entry: dict[str, Any] = profile["ratings"][0]
            return entry
        time.sleep(0.1)
    raise AssertionError(f"{username} was not rated")


def test_two_players_pair_play_a_rated_match_and_are_rated(start_server: Callable[..., Server],
                                                           database_url: str) -> None:
    server = start_server(database_url)
    eleni, nikos = Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    first = seek(eleni)
    lobby = httpx.get(f"{server.http}/api/seeks").json()["seeks"]
    shown = [(s["username"], s["family"], s["clock"], s["rating"]) for s in lobby]
    assert shown == [("Eleni", "greek", 60, 1500)]
    started = time.monotonic()
    second = seek(nikos)
    seats = [paired(eleni, first), paired(nikos, second)]
    assert time.monotonic() - started < 1.0  # both waiting: paired within a second
    assert seats[0]["table"] == seats[1]["table"] and {s["seat"] for s in seats} == {0, 1}
    assert httpx.get(f"{server.http}/api/seeks").json()["seeks"] == []
    table_id = seats[0]["table"]
    table = httpx.get(f"{server.http}/api/tables/{table_id}").json()
    assert not table["casual"] and not table["public"] and table["clock"] == 60
    assert {s["name"] for s in table["seats"]} == {"Eleni", "Nikos"}

    async def play() -> list[dict[str, Any]]:
        players = [await Player.connect(eleni, table_id), await Player.connect(nikos, table_id)]
        assert [p.seat for p in players] == [seats[0]["seat"], seats[1]["seat"]]
        await players[0].send({"type": "hint"})
        refused = await players[0].receive()
        while refused["type"] != "error":
            refused = await players[0].receive()
        assert refused["code"] == "hints-off"
        finals = await asyncio.gather(*(p.play_to_the_end(300) for p in players))
        for player in players:
            await player.close()
        return list(finals)

    final = asyncio.run(play())[0]
    winner_side = final["table"]["winner"]
    names = {seats[0]["seat"]: "Eleni", seats[1]["seat"]: "Nikos"}
    winner, loser = names[winner_side], names[1 - winner_side]
    (won,), (lost,) = rate([[Rating()], [Rating()]], [0, 1])
    assert round(won.mu) == 1617 and round(lost.mu) == 1383  # worked out by hand in test_ratings
    for name, expected in ((winner, won), (loser, lost)):
        entry = wait_for_rating(server, name)
        assert entry["family"] == "greek" and entry["games"] == 1
        assert entry["rating"] == round(expected.mu) and entry["shown"] == f"{round(expected.mu)}?"
        assert [h["table"] for h in entry["history"]] == [table_id]
    board = httpx.get(f"{server.http}/api/leaderboard/greek").json()["players"]
    assert [(p["rank"], p["username"]) for p in board] == [(1, winner), (2, loser)]
    games = eleni.http.get("/api/players/Eleni/games").text.splitlines()
    assert len(games) == 1 and table_id in games[0]
    filtered = ((winner, "win", 1), (winner, "loss", 0), (loser, "loss", 1), (loser, "win", 0))
    for name, result, count in filtered:
        query = {"result": result, "family": "greek"}
        answer = httpx.get(f"{server.http}/api/players/{name}/games", params=query)
        assert answer.headers["content-type"].startswith("application/x-ndjson")
        assert len(answer.text.splitlines()) == count, (name, result)
    assert httpx.get(f"{server.http}/api/players/Eleni/games", params={"family": "pisti"}).text == ""
    profile = httpx.get(f"{server.http}/api/players/Eleni").json()
    assert profile["statistics"]["games"] == 1 and profile["statistics"]["points_per_round"] > 0


def test_abandoning_a_rated_match_loses_it(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, grace="1")
    eleni, nikos = Browser(server), Browser(server)
    eleni.sign_up("Eleni")
    nikos.sign_up("Nikos")
    first, second = seek(eleni), seek(nikos)
    mine, _ = paired(eleni, first), paired(nikos, second)

    async def play() -> dict[str, Any]:
        player = await Player.connect(eleni, mine["table"])
        leaver = await Player.connect(nikos, mine["table"])  # Nikos plays once and leaves
        playing = asyncio.create_task(player.play_to_the_end())
        await leaver.play_once()
        await leaver.close()
        final = await playing
        await player.close()
        return final

    final = asyncio.run(play())
    assert final["event"] == {"kind": "match-end", "winner": mine["seat"], "forfeit": 1 - mine["seat"]}
    assert final["table"]["status"] == "finished" and final["table"]["winner"] == mine["seat"]
    assert wait_for_rating(server, "Eleni")["rating"] == 1617
    assert wait_for_rating(server, "Nikos")["rating"] == 1383


def test_a_lone_seek_is_offered_a_bot_and_can_be_withdrawn(start_server: Callable[..., Server],
                                                          sqlite_url: str) -> None:
    server = start_server(sqlite_url, bot_offer="0.3")
    eleni = Browser(server)
    eleni.sign_up("Eleni")
    error = eleni.post("/api/seeks", {"family": "bridge", "clock": 60})
    assert error.status_code == 422 and "greek" in error.json()["error"]["message"]
    error = eleni.post("/api/seeks", {"family": "greek", "clock": 7})
    assert error.status_code == 422 and "10, 20, 30, 60" in error.json()["error"]["message"]
    assert Browser(server).post("/api/seeks", {"family": "greek", "clock": 60}).status_code == 401
    seek_id = seek(eleni, "pisti", 30)
    status = eleni.http.get(f"/api/seeks/{seek_id}", params={"wait": 0.5}).json()
    assert status["status"] == "waiting" and status["offer_bot"] and status["bot_level"] in (
        "random", "greedy", "expert", "master")
    assert Browser(server).http.get(f"/api/seeks/{seek_id}").status_code == 401
    assert eleni.http.delete(f"/api/seeks/{seek_id}", headers={"X-CSRF-Token": eleni.csrf}).json() == {
        "status": "cancelled"}
    assert httpx.get(f"{server.http}/api/seeks").json()["seeks"] == []


def play_table(browsers: list[Browser], family: str) -> tuple[dict[str, int], dict[str, Any]]:
    """Everyone seeks ``family``; they are paired at one table and play it out. Each player's
    seat, and the final state."""
    seeks = [seek(browser, family) for browser in browsers]
    seats = [paired(browser, seek_id) for browser, seek_id in zip(browsers, seeks, strict=True)]
    assert len({s["table"] for s in seats}) == 1
    table_id = seats[0]["table"]

    async def play() -> dict[str, Any]:
        players = [await Player.connect(browser, table_id) for browser in browsers]
        finals = await asyncio.gather(*(p.play_to_the_end(300) for p in players))
        for player in players:
            await player.close()
        return finals[0]

    final = asyncio.run(play())
    return {b.username: s["seat"] for b, s in zip(browsers, seats, strict=True)}, final


def test_a_partnership_rates_both_partners_as_a_team(start_server: Callable[..., Server],
                                                     sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    browsers = [Browser(server) for _ in range(4)]
    for browser, name in zip(browsers, ("Eleni", "Nikos", "Maria", "Petros"), strict=True):
        browser.sign_up(name)
    seats, final = play_table(browsers, "partnership")
    winner = final["table"]["winner"]
    after = rate([[Rating(), Rating()], [Rating(), Rating()]], [0, 1])
    won, lost = round(after[0][0].mu), round(after[1][0].mu)
    assert (won, lost) == (1585, 1415)  # worked out by hand in test_ratings
    for name, seat in seats.items():
        entry = wait_for_rating(server, name)
        assert entry["family"] == "partnership"
        assert entry["rating"] == (won if seat % 2 == winner else lost), (name, seat, winner)


def test_three_players_are_rated_by_their_places(start_server: Callable[..., Server],
                                                  sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    browsers = [Browser(server) for _ in range(3)]
    for browser, name in zip(browsers, ("Eleni", "Nikos", "Maria"), strict=True):
        browser.sign_up(name)
    seats, final = play_table(browsers, "three-player")
    ranks = side_ranks(3, final["table"]["winner"], final["table"]["totals"])
    expected = rate([[Rating()], [Rating()], [Rating()]], ranks)
    for name, seat in seats.items():
        assert wait_for_rating(server, name)["rating"] == round(expected[seat][0].mu), name

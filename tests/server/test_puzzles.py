"""Puzzles through a real server on loopback: the starting set on a fresh server, a puzzle
solved and one failed (the account's rating moves both ways), guests unrated, the daily puzzle,
retry, bad input refused with nothing stored, and a finished game's mistakes made puzzles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser, play_out, worst_card
from serverkit import Server, bot, human

from kseri.analysis.puzzles import starting_set


def error(answer: httpx.Response, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()["error"]
    assert body["code"] == code
    message: str = body["message"]
    return message


def wrong_card(puzzle: dict[str, Any]) -> str:
    """A card of the hand that does not solve the puzzle (the shipped set says which)."""
    known = {p.id: p for p in starting_set()}[puzzle["id"]]
    return next(str(card) for card in known.view.hand if card not in known.answers)


def right_card(puzzle: dict[str, Any]) -> str:
    return str({p.id: p for p in starting_set()}[puzzle["id"]].answers[0])


def test_an_account_solves_and_fails_puzzles_and_its_rating_moves_both_ways(
        start_server: Callable[..., Server], database_url: str) -> None:
    server = start_server(database_url)
    eleni = Browser(server)
    eleni.sign_up("Eleni")
    assert eleni.http.get("/api/puzzles/rating").json() == {
        "rating": 1500, "solved": 0, "failed": 0, "streak": 0, "best_streak": 0}
    first = eleni.http.get("/api/puzzles/next").json()
    assert first["id"] in {p.id for p in starting_set()}  # a fresh server has the shipped set
    assert set(first) == {"id", "view", "rating", "exact", "hand"} and "answers" not in first["view"]
    solved = eleni.post(f"/api/puzzles/{first['id']}/answer", {"card": right_card(first)}).json()
    assert solved["solved"] and solved["rated"] and right_card(first) in solved["answers"]
    assert solved["rating"]["change"] > 0 and solved["standing"]["streak"] == 1
    second = eleni.http.get("/api/puzzles/next").json()
    assert second["id"] != first["id"]
    failed = eleni.post(f"/api/puzzles/{second['id']}/answer", {"card": wrong_card(second)}).json()
    assert not failed["solved"] and failed["rating"]["change"] < 0
    assert failed["rating"]["before"] == solved["rating"]["after"]
    assert failed["standing"] == {"rating": failed["rating"]["after"], "solved": 1, "failed": 1,
                                  "streak": 0, "best_streak": 1}
    # the failed one comes back to retry; a retry is not rated again
    assert eleni.http.get("/api/puzzles/retry").json()["id"] == second["id"]
    again = eleni.post(f"/api/puzzles/{second['id']}/answer", {"card": right_card(second)}).json()
    assert again["solved"] and not again["rated"] and again["rating"]["change"] == 0
    error(eleni.http.get("/api/puzzles/retry"), 404, "no-failed-puzzle")
    # the daily puzzle is the same for everyone
    guest = httpx.Client(base_url=server.http)
    assert guest.get("/api/puzzles/daily").json() == eleni.http.get("/api/puzzles/daily").json()


def test_a_guest_solves_unrated_and_bad_input_is_refused_with_nothing_stored(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    guest = httpx.Client(base_url=server.http)
    puzzle = guest.get("/api/puzzles/next").json()
    answer = guest.post(f"/api/puzzles/{puzzle['id']}/answer", json={"card": right_card(puzzle)}).json()
    assert answer["solved"] and not answer["rated"]
    assert answer["rating"] is None and answer["standing"] is None
    assert guest.get("/api/puzzles/next", params={"skip": puzzle["id"]}).json()["id"] != puzzle["id"]
    assert "sign in" in error(guest.get("/api/puzzles/rating"), 401, "guest")
    error(guest.get("/api/puzzles/retry"), 401, "guest")

    eleni = Browser(server)
    eleni.sign_up("Eleni")
    assert "no puzzle 'nope'" in error(eleni.post("/api/puzzles/nope/answer", {"card": "JD"}), 404,
                                       "no-such-puzzle")
    error(eleni.http.get("/api/puzzles/nope"), 404, "no-such-puzzle")
    outside = next(c for c in ("JD", "JC", "JH", "JS", "2C") if c not in puzzle["hand"])
    assert "not a card of the hand" in error(
        eleni.post(f"/api/puzzles/{puzzle['id']}/answer", {"card": outside}), 422, "not-in-hand")
    error(eleni.post(f"/api/puzzles/{puzzle['id']}/answer", {"card": "banana"}), 422, "not-in-hand")
    error(eleni.post(f"/api/puzzles/{puzzle['id']}/answer", {"card": puzzle["hand"][0]}, csrf=False),
          403, "bad-csrf")
    # nothing was stored: the rating is untouched and the puzzle is still new to Eleni
    assert eleni.http.get("/api/puzzles/rating").json()["solved"] == 0
    assert eleni.http.get("/api/puzzles/rating").json()["failed"] == 0
    error(eleni.http.get("/api/puzzles/retry"), 404, "no-failed-puzzle")
    first = eleni.post(f"/api/puzzles/{puzzle['id']}/answer", {"card": wrong_card(puzzle)}).json()
    assert first["rated"]


def test_a_finished_games_mistakes_become_the_players_puzzles(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, bot_delay="0")
    # a match of two or three rounds, played badly: about 8 puzzles, and in 100 such matches
    # played offline never fewer than one (a single round to 10 made none in one of 100)
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=60")
    table, token = created["table"]["id"], created["token"]
    eleni = Browser(server)
    eleni.sign_up("Eleni", seats=[{"table": table, "token": token}])
    stranger = Browser(server)
    stranger.sign_up("Stranger")
    play_out(eleni, table, choose=worst_card)  # the expert's worst card every time: mistakes
    error(stranger.post(f"/api/tables/{table}/puzzles"), 404, "not-your-game")
    error(httpx.post(f"{server.http}/api/tables/{table}/puzzles"), 401, "not-signed-in")
    made = eleni.post(f"/api/tables/{table}/puzzles")
    assert made.status_code == 200, made.text
    found = made.json()["puzzles"]
    assert found, "playing the worst card every time leaves a clear mistake"
    shipped = {p.id for p in starting_set()}
    assert not {p["id"] for p in found} & shipped
    assert all(p["view"]["seat"] == 0 for p in found)
    # Eleni's own mistakes come first; a stranger is not given them
    assert eleni.http.get("/api/puzzles/next").json()["id"] == found[0]["id"]
    assert stranger.http.get("/api/puzzles/next").json()["id"] in shipped
    # asked again, the same puzzles, kept once
    assert [p["id"] for p in eleni.post(f"/api/tables/{table}/puzzles").json()["puzzles"]] == [
        p["id"] for p in found]


def test_win_odds_of_a_finished_casual_game_and_never_of_a_rated_one(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, bot_delay="0")
    created = server.create([human("Eleni"), bot("greedy")], rules="greek,target=10")
    table, token = created["table"]["id"], created["token"]
    error(httpx.get(f"{server.http}/api/tables/{table}/odds", params={"round": 0, "play": 0}), 409,
          "not-finished")  # in play: the odds would speak of cards not yet shown
    play_out(Browser(server), table, token)
    answer = httpx.get(f"{server.http}/api/tables/{table}/odds", params={"round": 0, "play": 3}, timeout=120)
    assert answer.status_code == 200, answer.text
    odds = answer.json()
    assert odds["seat"] in (0, 1) and odds["round"] == 0 and odds["play"] == 3
    for key in ("round_odds", "match_odds"):
        estimate, low, high = odds[key]
        assert 0 <= low <= estimate <= high <= 1
    error(httpx.get(f"{server.http}/api/tables/{table}/odds", params={"round": 0, "play": 999}), 422,
          "no-such-play")
    error(httpx.get(f"{server.http}/api/tables/nope/odds", params={"round": 0, "play": 0}), 404,
          "no-such-table")
    query(sqlite_url, f"UPDATE tables SET rated = 1 WHERE id = '{table}'")
    assert "rated" in error(httpx.get(f"{server.http}/api/tables/{table}/odds",
                                      params={"round": 0, "play": 3}), 403, "rated")


def query(url: str, sql: str) -> None:
    """Run one statement on the server's SQLite database."""
    import sqlite3

    with sqlite3.connect(url.split("///", 1)[1]) as connection:
        connection.execute(sql)

"""Rated tournaments and a bot for the odd one out, through the real server on loopback: a
rated Swiss's results move the players' ratings exactly as ``ratings.rate`` does, round by
round; a casual one moves none; an account banned from rated play cannot enter a rated
tournament; a bot plays whoever would get a bye, the game scoring the bye's point."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
from serverkit import Server
from test_moderation_routes import act, admin
from test_tournaments import create, enter, play_tournament, show, wait_for

from kseri.server.ratings import Rating, rate

Json = dict[str, Any]


def rating_of(server: Server, name: str, family: str) -> Json:
    """The player's rating in ``family`` as the profile shows it (``{}``: not rated)."""
    answer = httpx.get(f"{server.http}/api/players/{name}", timeout=10)
    assert answer.status_code == 200, answer.text
    found: Json = next((r for r in answer.json()["ratings"] if r["family"] == family), {})
    return found


def refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code


def test_a_rated_swiss_moves_ratings_as_rate_does(start_server: Callable[..., Server],
                                                  sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits="signups_per_hour=10")
    browsers = enter(server, ["nia", "oto", "pia", "quo", "wes", "mod"])
    players, banned, mod = browsers[:4], browsers[4], browsers[5]
    assert admin("grant-moderator", "mod", database_url=sqlite_url).returncode == 0
    refused(mod.post("/api/tournaments", {"name": "x", "rules": "greek,target=1", "rated": True}), 422,
            "bad-rated")

    created = create(players[0], rounds=2, rules="greek", rated=True)
    assert created["rated"] is True and created["bot"] is None
    tid = created["id"]
    assert act(mod, "wes", "rated-ban", "boosting a friend", days=7).status_code == 200
    refused(banned.post(f"/api/tournaments/{tid}/join"), 403, "rated-banned")
    refused(banned.post("/api/tournaments", {"name": "mine", "rules": "greek", "rated": True}), 403,
            "rated-banned")
    assert show(players[0], tid)["entrants"] == 1, "the refusals changed nothing"
    casual = create(banned, rounds=1)  # casual play is not rated play
    assert banned.http.delete(f"/api/tournaments/{casual['id']}",
                              headers={"X-CSRF-Token": banned.csrf}).status_code == 204
    for browser in players[1:]:
        assert browser.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert players[0].post(f"/api/tournaments/{tid}/start").status_code == 204

    finals: dict[str, Json] = {}
    asyncio.run(play_tournament(players, tid, 2, finals))
    data = wait_for(lambda: (d := show(players[0], tid))["status"] == "finished" and d)
    expected = {name: Rating() for name in ("nia", "oto", "pia", "quo")}
    for rnd in data["pairings"]:  # rated round by round, each table from the ratings before it
        for game in rnd["games"]:
            winner = finals[game["table"]]["table"]["winner"]
            ranks = [0, 0] if winner is None else [0, 1] if winner == 0 else [1, 0]
            (first,), (second,) = rate([[expected[game["first"]]], [expected[game["second"]]]], ranks)
            expected[game["first"]], expected[game["second"]] = first, second
    for name, after in expected.items():
        shown = rating_of(server, name, "greek")
        assert shown["games"] == 2
        assert abs(shown["mu"] - after.mu) < 1e-2 and abs(shown["sigma"] - after.sigma) < 1e-2


def test_a_casual_tournament_rates_nobody(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    browsers = enter(server, ["rea", "sol"])
    tid = create(browsers[0], rounds=1, rules="greek")["id"]
    assert browsers[1].post(f"/api/tournaments/{tid}/join").status_code == 204
    assert browsers[0].post(f"/api/tournaments/{tid}/start").status_code == 204
    finals: dict[str, Json] = {}
    asyncio.run(play_tournament(browsers, tid, 1, finals))
    data = wait_for(lambda: (d := show(browsers[0], tid))["status"] == "finished" and d)
    assert data["rated"] is False and len(finals) == 1
    assert rating_of(server, "rea", "greek") == {} and rating_of(server, "sol", "greek") == {}


def test_a_bot_plays_the_odd_one_out(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    browsers = enter(server, ["tao", "uma", "vic"])
    refused(browsers[0].post("/api/tournaments", {"name": "x", "bot": "grandmaster"}), 422, "bad-bot")
    refused(browsers[0].post("/api/tournaments", {"name": "x", "format": "arena", "minutes": 5,
                                                  "bot": "random"}), 422, "bad-bot")
    refused(browsers[0].post("/api/tournaments", {"name": "x", "format": "mirrored", "bot": "random"}),
            422, "bad-bot")
    tid = create(browsers[0], rounds=2, bot="random")["id"]
    for browser in browsers[1:]:
        assert browser.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert browsers[0].post(f"/api/tournaments/{tid}/start").status_code == 204

    finals: dict[str, Json] = {}
    asyncio.run(play_tournament(browsers, tid, 2, finals))
    data = wait_for(lambda: (d := show(browsers[0], tid))["status"] == "finished" and d)
    bot_games = [g for rnd in data["pairings"] for g in rnd["games"] if g["second"] is None]
    assert len(bot_games) == 2 and len({g["first"] for g in bot_games}) == 2, "a different odd one out"
    for game in bot_games:
        final = finals[game["table"]]["table"]
        assert game["bot"] == "random" and final["seats"][1]["name"] == "random bot"
        assert game["score"] == 1.0, "the bot's game scores the bye's point, whatever its result"
        assert game["points"] == final["totals"]
    assert sum(e["score"] for e in data["standings"]) == 4.0  # per round: a game's 1 and the bye's 1


def seated_rated(browsers: list[Any]) -> str:
    """Two accounts paired by quick pairing at a rated table (not played); its id."""
    first = browsers[0].post("/api/seeks", {"family": "greek", "clock": 20})
    assert first.status_code == 201, first.text
    second = browsers[1].post("/api/seeks", {"family": "greek", "clock": 20, "accept": first.json()["id"]})
    assert second.status_code == 201, second.text
    status = wait_for(lambda: (s := browsers[0].http.get(
        f"/api/seeks/{first.json()['id']}").json())["status"] == "paired" and s)
    table: str = status["table"]
    return table


def test_one_rated_game_at_a_time(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    rea, sol, tul, uno = enter(server, ["rea", "sol", "tul", "uno"])
    quick = seated_rated([rea, sol])
    # at a quick pairing's rated table when the round opens: the tournament's game is not rated
    tid = create(rea, rounds=1, rules="greek", rated=True)["id"]
    assert sol.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert rea.post(f"/api/tournaments/{tid}/start").status_code == 204
    table = wait_for(lambda: show(rea, tid)["my_table"])
    assert table != quick
    assert httpx.get(f"{server.http}/api/tables/{table}/ratings").json() == {"rated": False}
    # at a rated tournament's table: no rated quick game meanwhile
    other = create(tul, rounds=1, rules="greek", rated=True)["id"]
    assert uno.post(f"/api/tournaments/{other}/join").status_code == 204
    assert tul.post(f"/api/tournaments/{other}/start").status_code == 204
    table = wait_for(lambda: show(tul, other)["my_table"])
    assert httpx.get(f"{server.http}/api/tables/{table}/ratings").json()["rated"] is True
    refused(tul.post("/api/seeks", {"family": "greek", "clock": 20}), 409, "in-game")

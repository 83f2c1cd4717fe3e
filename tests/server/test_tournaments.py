"""Tournaments for people through the real server on loopback: a Swiss of eight accounts whose
WebSocket clients play every table; the same deals at every table of a round; standings equal to
a recomputation from the tables' own final states; a duplicate of eight with a ``kill -9``
mid-tournament resumed; and bad input refused with nothing changed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser, Player
from serverkit import Server

from kseri.bench import swiss

Json = dict[str, Any]
RULES = "greek,target=1,target_rule=higher-wins"
"""One round a match: a quick table."""
EIGHT = "signups_per_hour=20"
"""Limits that let eight accounts sign up from one address (loopback)."""


def wait_for(check: Callable[[], Any], timeout: float = 60, every: float = 0.2) -> Any:
    """``check()``'s first true answer within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s")


def show(browser: Browser, tournament_id: str) -> Json:
    answer = browser.http.get(f"/api/tournaments/{tournament_id}")
    assert answer.status_code == 200, answer.text
    data: Json = answer.json()
    return data


async def play_round(browser: Browser, tournament_id: str, done: set[str]) -> Json | None:
    """Wait for this player's table of the round under way (not one already played) and play
    it to the end; the final state, or ``None`` once the tournament is over."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        data = await asyncio.to_thread(show, browser, tournament_id)
        if data["status"] == "finished":
            return None
        table = data["my_table"]
        if table and table not in done:
            done.add(table)
            player = await Player.connect(browser, table)
            try:
                return await player.play_to_the_end()
            finally:
                await player.close()
        await asyncio.sleep(0.2)
    raise AssertionError("no table came")


async def play_tournament(browsers: list[Browser], tournament_id: str, rounds: int,
                          finals: dict[str, Json]) -> None:
    """Every player plays ``rounds`` rounds' tables (each finished table's state in ``finals``)."""
    async def one(browser: Browser) -> None:
        done: set[str] = set(finals)
        for _ in range(rounds):
            final = await play_round(browser, tournament_id, done)
            if final is None:
                return
            finals[final["table"]["id"]] = final

    await asyncio.gather(*(one(b) for b in browsers))


def recomputed(data: Json, finals: dict[str, Json]) -> list[tuple[str, float, float]]:
    """The standings recomputed from the tables' final states: (name, score, Buchholz) by
    score, then Buchholz (the server's draw breaks the remaining ties)."""
    played = []
    for rnd in data["pairings"]:
        for game in rnd["games"]:
            final = finals[game["table"]]
            seats = [seat["name"] for seat in final["table"]["seats"]]
            assert seats == [game["first"], game["second"]]
            winner = final["table"]["winner"]
            played.append(swiss.Game(seats[0], seats[1], 1.0 if winner == 0 else 0.0 if winner == 1 else 0.5))
            assert game["points"] == final["table"]["totals"]
    names = [e["username"] for e in data["players"]]
    score, buchholz = swiss.scores(names, played), swiss.buchholz(names, played)
    return sorted(((n, score[n], buchholz[n]) for n in names), key=lambda e: (-e[1], -e[2], e[0]))


def first_deals(data: Json, finals: dict[str, Json]) -> list[set[str]]:
    """Each round's set of first-deal seeds over its tables (one seed: the same cards)."""
    return [{finals[g["table"]]["fairness"]["revealed"][0]["deal_seed"] for g in rnd["games"]}
            for rnd in data["pairings"]]


def enter(server: Server, names: list[str]) -> list[Browser]:
    browsers = [Browser(server) for _ in names]
    for browser, name in zip(browsers, names, strict=True):
        browser.sign_up(name)
    return browsers


def create(organiser: Browser, rounds: int = 3, **options: Any) -> Json:
    answer = organiser.post("/api/tournaments", {"name": "Friday Swiss", "rules": RULES, "rounds": rounds,
                                                 "starts_in": 3600} | options)
    assert answer.status_code == 201, answer.text
    created: Json = answer.json()
    return created


def test_a_swiss_of_eight_played_to_the_end(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits=EIGHT)
    browsers = enter(server, ["ana", "ben", "cleo", "dimos", "eleni", "filippos", "gogo", "haris"])
    created = create(browsers[0])
    tid = created["id"]
    assert created["status"] == "open" and created["secret"] is None and len(created["commitment"]) == 64
    for browser in browsers[1:]:
        assert browser.post(f"/api/tournaments/{tid}/join").status_code == 204
    listed = browsers[0].http.get("/api/tournaments").json()["tournaments"]
    assert [(t["id"], t["entrants"]) for t in listed] == [(tid, 8)]
    assert browsers[0].post(f"/api/tournaments/{tid}/start").status_code == 204

    finals: dict[str, Json] = {}
    asyncio.run(play_tournament(browsers, tid, 3, finals))
    data = wait_for(lambda: (d := show(browsers[0], tid))["status"] == "finished" and d)

    assert [len(r["games"]) for r in data["pairings"]] == [4, 4, 4]
    met = [frozenset((g["first"], g["second"])) for r in data["pairings"] for g in r["games"]]
    assert len(set(met)) == 12, "no pairing repeats in three rounds of eight"
    deals = first_deals(data, finals)
    assert all(len(seeds) == 1 for seeds in deals), "every table of a round deals the same cards"
    assert len(set.union(*deals)) == 3, "each round deals new cards"
    expected = recomputed(data, finals)
    shown = [(e["username"], e["score"], e["buchholz"]) for e in data["standings"]]
    assert sorted(shown, key=lambda e: (-e[1], -e[2], e[0])) == expected
    assert [e[1:] for e in shown] == [e[1:] for e in expected], "ordered by score, then Buchholz"
    assert sum(e["score"] for e in data["standings"]) == 12
    assert data["secret"] is not None and len(data["round_keys"]) == 3


def test_a_tournament_survives_kill_9(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits=EIGHT)
    browsers = enter(server, ["eva", "fotis", "gia", "hari", "ilias", "jana", "kostas", "lena"])
    tid = create(browsers[0], rounds=2, format="duplicate")["id"]
    for browser in browsers[1:]:
        assert browser.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert browsers[0].post(f"/api/tournaments/{tid}/start").status_code == 204

    finals: dict[str, Json] = {}
    asyncio.run(play_tournament(browsers, tid, 1, finals))  # round 1 played
    wait_for(lambda: show(browsers[0], tid)["round"] == 2)  # round 2 paired, its tables open
    server.kill()
    server.start()
    asyncio.run(play_tournament(browsers, tid, 1, finals))
    data = wait_for(lambda: (d := show(browsers[0], tid))["status"] == "finished" and d)
    assert [len(r["games"]) for r in data["pairings"]] == [4, 4]
    assert all(g["score"] is not None for r in data["pairings"] for g in r["games"]), "no result lost"
    assert all(len(seeds) == 1 for seeds in first_deals(data, finals))
    recomputed(data, finals)  # every stored result is its table's
    # duplicate: per round and seat, the four results compared in pairs: 1 matchpoint to the
    # better of each pair, or ½ each (6 pairs a seat)
    assert sum(e["matchpoints"] for e in data["standings"]) == 2 * 2 * 6
    assert sorted(e["score"] for e in data["standings"]) == sorted(e[1] for e in recomputed(data, finals))


def test_bad_input_changes_nothing(start_server: Callable[..., Server], database_url: str) -> None:
    server = start_server(database_url)
    ira, jon, kim = enter(server, ["ira", "jon", "kim"])
    tid = create(ira)["id"]

    def refused(answer: httpx.Response, status: int, code: str) -> None:
        assert answer.status_code == status, answer.text
        assert answer.json()["error"]["code"] == code

    refused(jon.post("/api/tournaments", {"name": "x", "rules": "partnership"}), 422, "bad-rules")
    refused(jon.post("/api/tournaments", {"name": "x", "rules": "greek", "format": "arena"}), 422,
            "bad-request")
    refused(jon.post("/api/tournaments", {"name": "x", "rules": "no-such-game"}), 422, "bad-rules")
    refused(httpx.post(f"{server.http}/api/tournaments/{tid}/join"), 401, "not-signed-in")
    assert jon.post(f"/api/tournaments/{tid}/join").status_code == 204
    refused(jon.post(f"/api/tournaments/{tid}/join"), 409, "already-joined")
    refused(jon.post("/api/tournaments", {"name": "mine"}), 409, "in-another-tournament")
    refused(jon.post(f"/api/tournaments/{tid}/start"), 403, "not-organiser")
    refused(ira.post(f"/api/tournaments/{tid}/withdraw"), 409, "organiser")
    refused(ira.post("/api/tournaments/nope/join"), 404, "no-such-tournament")
    assert jon.post(f"/api/tournaments/{tid}/withdraw").status_code == 204
    assert show(ira, tid)["players"] == [{"username": "ira", "withdrawn": False}]
    refused(ira.post(f"/api/tournaments/{tid}/start"), 409, "too-few-entrants")
    assert jon.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert ira.post(f"/api/tournaments/{tid}/start").status_code == 204
    refused(kim.post(f"/api/tournaments/{tid}/join"), 409, "tournament-started")
    refused(ira.http.delete(f"/api/tournaments/{tid}", headers={"X-CSRF-Token": ira.csrf}), 409,
            "tournament-started")
    data = show(ira, tid)
    assert data["status"] == "playing" and [e["username"] for e in data["players"]] == ["ira", "jon"]
    assert data["my_table"] == show(jon, tid)["my_table"] is not None, "both sent to their one table"
    assert [g["first"] for g in data["pairings"][0]["games"]] in (["ira"], ["jon"])


def test_players_who_never_come_do_not_hold_the_tournament_up(start_server: Callable[..., Server],
                                                             sqlite_url: str) -> None:
    # an absent player's seat is played by the stand-in once their grace is over, as at every
    # table: the round ends, the tournament goes on to its end
    server = start_server(sqlite_url, grace="1", ready_timeout="1")
    lea, max_ = enter(server, ["lea", "max"])
    tid = create(lea, rounds=2)["id"]
    assert max_.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert lea.post(f"/api/tournaments/{tid}/start").status_code == 204
    data = wait_for(lambda: (d := show(lea, tid))["status"] == "finished" and d, timeout=120)
    assert [len(r["games"]) for r in data["pairings"]] == [1, 1]
    assert all(g["score"] is not None for r in data["pairings"] for g in r["games"])
    assert sum(e["score"] for e in data["standings"]) == 2.0

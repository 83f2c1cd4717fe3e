"""A profile's results in events through the real server (``server/results.py``): the
tournaments a player played (place of how many, points), as the tournament's own standings
rank them, and the challenges finished by both sides (won, lost or drawn, against whom)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
from serverkit import Server
from test_challenges import Json, ok, play_set
from test_tournaments import create, enter, play_tournament, show, wait_for


def results(server: Server, name: str) -> Json:
    return ok(httpx.get(f"{server.http}/api/players/{name}/results", timeout=10))


def test_a_profile_lists_places_in_tournaments_and_challenge_results(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    ana, ben, cleo = enter(server, ["ana", "ben", "cleo"])
    assert results(server, "ana") == {"tournaments": [], "challenges": []}
    # a tournament not started yet is no result
    created = create(ana, rounds=1)
    tid = created["id"]
    assert ben.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert results(server, "ana")["tournaments"] == []
    assert ana.post(f"/api/tournaments/{tid}/start").status_code == 204
    finals: dict[str, Json] = {}
    asyncio.run(play_tournament([ana, ben], tid, 1, finals))
    data = wait_for(lambda: (d := show(ana, tid))["status"] == "finished" and d)
    for entry in data["standings"]:
        (listed,) = results(server, entry["username"])["tournaments"]
        assert (listed["id"], listed["name"], listed["status"], listed["format"]) == (
            tid, "Friday Swiss", "finished", "swiss")
        assert (listed["place"], listed["entrants"], listed["points"]) == (entry["place"], 2, entry["score"])
    assert results(server, "cleo")["tournaments"] == []

    # challenges: finished by both sides only, each side's result and the opponent
    made = ok(ana.post("/api/challenges", {"opponent": "ben", "rules": "pisti", "deals": 4, "rated": True}),
              201)["id"]
    ok(ben.post(f"/api/challenges/{made}/accept"))
    ana_set = play_set(ana, made, lambda hand: hand[0])
    assert results(server, "ana")["challenges"] == []  # ben has not played yet
    ben_set = play_set(ben, made, lambda hand: hand[-1])
    difference = sum(ana_set["results"]) - sum(ben_set["results"])
    word = {1: "won", -1: "lost", 0: "drawn"}
    sign = (difference > 0) - (difference < 0)
    (for_ana,) = results(server, "ana")["challenges"]
    (for_ben,) = results(server, "ben")["challenges"]
    assert (for_ana["id"], for_ana["opponent"], for_ana["rated"]) == (made, "ben", True)
    assert (for_ana["result"], for_ana["difference"]) == (word[sign], difference)
    assert (for_ben["opponent"], for_ben["result"]) == ("ana", word[-sign])
    assert for_ben["difference"] == -difference
    open_one = ok(cleo.post("/api/challenges", {"opponent": "ana", "deals": 4}), 201)["id"]
    ok(cleo.post(f"/api/challenges/{open_one}/withdraw"))
    assert len(results(server, "cleo")["challenges"]) == 0
    assert httpx.get(f"{server.http}/api/players/nobody/results").status_code == 404
    for browser in (ana, ben, cleo):
        browser.close()

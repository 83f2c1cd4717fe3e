"""Duplicate with mirrored seats through the real server on loopback: each pair plays the
round's deal twice, seats swapped (the second leg's table opens when the first is over), every
table of the round dealt the same cards; the standings equal a recomputation from the tables'
own final states."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from serverkit import Server
from test_tournaments import create, enter, first_deals, play_tournament, show, wait_for

from kseri.bench.matchpoints import board_matchpoints

Json = dict[str, Any]


def test_a_mirrored_duplicate_played_to_the_end(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    browsers = enter(server, ["ana", "ben", "cleo", "dimos"])
    tid = create(browsers[0], rounds=1, format="mirrored")["id"]
    for browser in browsers[1:]:
        assert browser.post(f"/api/tournaments/{tid}/join").status_code == 204
    assert browsers[0].post(f"/api/tournaments/{tid}/start").status_code == 204
    first = show(browsers[0], tid)["pairings"][0]["games"]
    assert [g["table"] is not None for g in first] == [True, False, True, False], "a leg at a time"

    finals: dict[str, Json] = {}
    asyncio.run(play_tournament(browsers, tid, 2, finals))  # two legs: two tables each
    data = wait_for(lambda: (d := show(browsers[0], tid))["status"] == "finished" and d)
    legs = data["pairings"][0]["games"]
    assert [(g["first"], g["second"]) for g in legs[1::2]] == [(g["second"], g["first"]) for g in legs[::2]]
    assert len(first_deals(data, finals)[0]) == 1, "all four tables dealt the same cards"
    boards: dict[int, dict[str, float]] = {0: {}, 1: {}}
    totals = {name: 0 for name in ["ana", "ben", "cleo", "dimos"]}
    for g in legs:
        table = finals[g["table"]]["table"]
        assert [s["name"] for s in table["seats"]] == [g["first"], g["second"]]
        assert g["points"] == table["totals"]
        first_points, second_points = table["totals"]
        boards[0][g["first"]] = first_points - second_points
        boards[1][g["second"]] = second_points - first_points
        totals[g["first"]] += first_points - second_points
        totals[g["second"]] += second_points - first_points
    assert all(len(board) == 4 for board in boards.values()), "everyone held both seats"
    matchpoints = {n: board_matchpoints(boards[0])[n] + board_matchpoints(boards[1])[n] for n in totals}
    shown = {e["username"]: e for e in data["standings"]}
    assert {n: shown[n]["matchpoints"] for n in totals} == matchpoints
    for g in legs[::2]:  # each pair's round: its points over both legs compared
        a, b = g["first"], g["second"]
        assert shown[a]["score"] == (1.0 if totals[a] > totals[b] else 0.5 if totals[a] == totals[b] else 0.0)
    assert sum(e["score"] for e in data["standings"]) == 2

"""A finished game played offline is added to a signed-in player's history (server/players.py,
``POST /api/offline-games``): listed as offline and unrated, never rated; a tampered record, an
unfinished one, the same game again and a guest are refused with a clear error, nothing stored."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser
from serverkit import Server

from kseri.offline import OfflineTable
from kseri.server.players import OFFLINE_UPLOADS

Json = dict[str, Any]


def offline_record(seed: int, *, finished: bool = True) -> Json:
    """The record of a two-player game the offline table plays (both seats by its bots, seat 0
    standing in for the person), played to its end or for only a few plays."""
    table = OfflineTable.new("greek", "greedy", seed, people=0)
    plays = 0
    while not table.is_over() and (finished or plays < 6):
        if json.loads(table.state())["phase"] == "round-over":
            table.next_round()
        else:
            table.bot_play()
            plays += 1
    record: Json = json.loads(table.record(json.dumps(["Eleni", "Computer"])))
    return record


def games_of(browser: Browser, username: str) -> list[Json]:
    answer = browser.http.get(f"/api/players/{username}/games")
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines()]


def test_a_finished_offline_game_joins_the_history_unrated(start_server: Callable[..., Server],
                                                           database_url: str) -> None:
    server = start_server(database_url)
    eleni = Browser(server)
    eleni.sign_up("Eleni")
    record = offline_record(11)
    answer = eleni.post("/api/offline-games", {"record": record, "seat": 0})
    assert answer.status_code == 201, answer.text
    stored = answer.json()
    assert stored["offline"] is True and stored["rated"] is False and stored["family"] == "greek"
    games = games_of(eleni, "eleni")
    assert [(g["table"], g["seat"], g["offline"]) for g in games] == [(stored["table"], 0, True)]
    listed = games[0]
    assert {key: listed[key] for key in record} == record  # the record as played, names and all
    assert eleni.http.get(f"/api/offline-games/{stored['table']}").json() == record  # its replay
    assert eleni.http.get("/api/offline-games/offline-nothing").status_code == 404
    analysed = eleni.http.get(f"/api/tables/{stored['table']}/analysis")
    assert analysed.status_code == 404 and "kseri analyse" in analysed.json()["error"]["message"]
    profile = eleni.http.get("/api/players/Eleni").json()
    assert profile["offline_games"] == 1 and profile["ratings"] == []
    assert profile["statistics"]["games"] == 0  # statistics are of the games played here
    exported = eleni.http.get("/api/account/data").json()
    exported_games = [(g["table"], g["offline"], g["rated"]) for g in exported["games"]]
    assert exported_games == [(stored["table"], True, False)]

    # the same game again: refused, whichever seat or names it claims
    again = eleni.post("/api/offline-games", {"record": record, "seat": 0})
    assert again.status_code == 409 and again.json()["error"]["code"] == "already-uploaded", again.text
    renamed = {**record, "names": ["E.", "Bot"]}
    assert eleni.post("/api/offline-games", {"record": renamed, "seat": 1}).status_code == 409
    # another account cannot take the seat already in a history
    nikos = Browser(server)
    nikos.sign_up("Nikos")
    taken = nikos.post("/api/offline-games", {"record": record, "seat": 0})
    assert taken.status_code == 409 and "seat 0" in taken.json()["error"]["message"], taken.text
    assert games_of(nikos, "Nikos") == [] and len(games_of(eleni, "Eleni")) == 1
    # uploads are rate-limited per account (each try counts, the refused ones too)
    for _ in range(OFFLINE_UPLOADS[0] - 3):
        assert eleni.post("/api/offline-games", {"record": record, "seat": 0}).status_code == 409
    limited = eleni.post("/api/offline-games", {"record": offline_record(14), "seat": 0})
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "too-many-uploads", limited.text
    assert nikos.post("/api/offline-games", {"record": offline_record(14), "seat": 0}).status_code == 201


def test_bad_uploads_are_refused_and_nothing_is_stored(start_server: Callable[..., Server],
                                                       sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    record = offline_record(12)
    guest = httpx.post(server.http + "/api/offline-games", json={"record": record, "seat": 0}, timeout=30)
    assert guest.status_code == 401 and guest.json()["error"]["code"] == "not-signed-in", guest.text
    eleni = Browser(server)
    eleni.sign_up("Eleni")
    assert eleni.post("/api/offline-games", {"record": record, "seat": 0}, csrf=False).status_code == 403

    tampered = json.loads(json.dumps(record))
    tampered["totals"][0] += 5  # a better score than the game gave
    refused = eleni.post("/api/offline-games", {"record": tampered, "seat": 0})
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "bad-record", refused.text
    assert "totals" in refused.json()["error"]["message"]
    swapped = json.loads(json.dumps(record))
    first = swapped["rounds"][0]["plays"]
    first[0], first[1] = first[1], first[0]  # plays out of turn
    out_of_turn = eleni.post("/api/offline-games", {"record": swapped, "seat": 0})
    assert out_of_turn.json()["error"]["code"] == "bad-record", out_of_turn.text

    unfinished = eleni.post("/api/offline-games", {"record": offline_record(13, finished=False), "seat": 0})
    assert unfinished.status_code == 422, unfinished.text
    assert unfinished.json()["error"]["code"] == "not-finished"
    for seat in (2, -1, "0", None):
        bad_seat = eleni.post("/api/offline-games", {"record": record, "seat": seat})
        assert bad_seat.status_code == 422 and bad_seat.json()["error"]["code"] == "bad-seat", bad_seat.text
    assert eleni.post("/api/offline-games", {"record": record}).json()["error"]["code"] == "bad-record"
    huge = {"record": {**record, "names": ["x" * 300_000, "Computer"]}, "seat": 0}
    assert eleni.post("/api/offline-games", huge).status_code == 413
    assert games_of(eleni, "Eleni") == []
    # after all that, the sound record is still accepted
    assert eleni.post("/api/offline-games", {"record": record, "seat": 0}).status_code == 201

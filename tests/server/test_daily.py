"""The daily deal on a real server (``server/daily.py``): several accounts play the day's set,
ranks and percentages equal a hand computation, the same plays meet the same bots, records stay
secret until their owner finishes and public once the day closes, the day's commitment verifies
with ``kseri verify``, and bad input is refused leaving everything as it was."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from playerkit import Browser
from serverkit import Server, error

Json = dict[str, Any]
DAY = "2026-12-04"


@pytest.fixture(autouse=True)
def quick_master(monkeypatch: pytest.MonkeyPatch) -> None:
    """The daily's master played by the expert: the master's searches are slow on CI."""
    monkeypatch.setenv("KSERI_DAILY_MASTER", "expert")


def start(browser: Browser, family: str = "greek", day: str = DAY, **body: str) -> Json:
    answer = browser.post(f"/api/daily/{day}/{family}/start", body)
    assert answer.status_code == 201, answer.text
    started: Json = answer.json()
    return started


def play_through(browser: Browser, attempt: Json, pick: Callable[[list[str]], str],
                 stop_before_end: bool = False) -> Json:
    """Play the attempt's deals to the end (or to its last card), picking from the hand."""
    headers = {"Authorization": f"Bearer {attempt['token']}"}
    state = attempt
    while not state["finished"]:
        hand = state["view"]["hand"]
        last = state["round"] == state["rounds"] - 1 and len(hand) == 1 and state["view"]["stock_size"] == 0
        if stop_before_end and last:
            return state
        answer = browser.http.post(f"/api/daily/attempts/{state['id']}/play", json={"card": pick(hand)},
                                   headers=headers)
        assert answer.status_code == 200, answer.text
        state = answer.json() | {"token": attempt["token"]}
    return state


def hand_matchpoints(results: dict[str, list[int]]) -> dict[str, float]:
    """Matchpoints summed over the deals, pair by pair, as a person would count them."""
    names = list(results)
    points = dict.fromkeys(names, 0.0)
    for deal in range(3):
        for a in names:
            for b in names:
                if a != b:
                    mine, theirs = results[a][deal], results[b][deal]
                    points[a] += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return points


def test_a_daily_played_by_several_accounts(start_server: Callable[..., Server], sqlite_url: str,
                                             clock: Callable[[str], None], tmp_path: Path) -> None:
    server = start_server(sqlite_url)
    browsers = {}
    for name in ("ann", "bob", "cyd", "dora"):
        browsers[name] = Browser(server)
        browsers[name].sign_up(name)
    today = httpx.get(server.http + "/api/daily").json()
    assert today["day"] == DAY
    commitment = next(d for d in today["dailies"] if d["rules"] == "greek")["commitment"]
    assert {d["rules"] for d in today["dailies"]} >= {"greek", "pisti"}
    assert all(d["status"] == "open" and d["secret"] is None for d in today["dailies"])

    picks: dict[str, Callable[[list[str]], str]] = {
        "ann": lambda hand: hand[0], "bob": lambda hand: hand[-1], "cyd": lambda hand: hand[0],
        "dora": lambda hand: sorted(hand)[len(hand) // 2]}
    attempts = {name: start(browsers[name]) for name in picks}
    assert all(a["ranked"] and a["view"]["seat"] == 0 for a in attempts.values())
    # every player gets the same first hand
    assert len({tuple(a["view"]["hand"]) for a in attempts.values()}) == 1

    # ann finishes; bob has not: ann's record and the ladder are secret to bob and to strangers
    finished = {"ann": play_through(browsers["ann"], attempts["ann"], picks["ann"])}
    error(browsers["bob"].http.get(f"/api/daily/{DAY}/greek/ladder"), 403, "play-first")
    error(browsers["bob"].http.get(f"/api/daily/attempts/{attempts['ann']['id']}/record"), 403, "play-first")
    error(httpx.get(f"{server.http}/api/daily/attempts/{attempts['ann']['id']}/record"), 403, "play-first")
    error(httpx.get(f"{server.http}/api/daily/attempts/{attempts['ann']['id']}/versus/{attempts['bob']['id']}"),
          403, "play-first")
    # nor does bob see it near his own end
    near = play_through(browsers["bob"], attempts["bob"], picks["bob"], stop_before_end=True)
    assert not near["finished"]
    error(browsers["bob"].http.get(f"/api/daily/{DAY}/greek/ladder"), 403, "play-first")
    assert browsers["ann"].http.get(f"/api/daily/{DAY}/greek/ladder").status_code == 200
    finished["bob"] = play_through(browsers["bob"], near, picks["bob"])
    for name in ("cyd", "dora"):
        finished[name] = play_through(browsers[name], attempts[name], picks[name])

    # the same plays met the same answers: ann's and cy's records hold the same plays
    records = {name: browsers[name].http.get(f"/api/daily/attempts/{attempts[name]['id']}/record",
                                             headers={"Authorization": f"Bearer {attempts[name]['token']}"}
                                             ).json() for name in picks}
    plays = {name: [r["rounds"][0]["plays"] for r in records[name]] for name in picks}
    assert plays["ann"] == plays["cyd"] and plays["ann"] != plays["bob"]
    assert all("fairness" not in r["rounds"][0] for r in records["ann"])  # the secret is kept till the close

    results = {name: [d["result"] for d in finished[name]["score"]["deals"]] for name in picks}
    # a result is the player's points minus the bot's, as the record of each deal says
    for name in picks:
        points = [r["rounds"][0]["points"] for r in records[name]]
        assert results[name] == [mine - bots for mine, bots in points]
    expected = hand_matchpoints(results)
    ladder = browsers["ann"].http.get(f"/api/daily/{DAY}/greek/ladder").json()
    assert ladder["players"] == 4
    by_name = {entry["name"]: entry for entry in ladder["ladder"]}
    for name in picks:
        assert by_name[name]["matchpoints"] == expected[name]
        assert by_name[name]["percentage"] == round(100 * expected[name] / 9, 1)  # 3 rivals × 3 deals
        better = sum(1 for other in picks if expected[other] > expected[name])
        shared = sum(1 for other in picks if expected[other] == expected[name]) > 1
        assert by_name[name]["place"] == f"#{better + 1}{'=' if shared else ''} of 4"
    assert by_name["ann"]["matchpoints"] == by_name["cyd"]["matchpoints"]  # alike: tied
    # each deal's percentage and the master's result beside it, worked out once per deal
    for deal, mine in enumerate(finished["dora"]["score"]["deals"]):
        beaten = sum(1.0 if results["dora"][deal] > results[o][deal] else 0.5
                     if results["dora"][deal] == results[o][deal] else 0.0 for o in picks if o != "dora")
        assert mine["matchpoints"] == beaten and mine["percentage"] == round(100 * beaten / 3, 1)
        assert isinstance(mine["master"], int)
    database = sqlite3.connect(sqlite_url.split("///", 1)[1])
    masters = database.execute("SELECT round, result FROM daily_masters WHERE day = ? AND rules = 'greek' "
                               "ORDER BY round", (DAY,)).fetchall()
    assert [m for _, m in masters] == [d["master"] for d in finished["ann"]["score"]["deals"]]
    assert [m for _, m in masters] == [d["master"] for d in finished["bob"]["score"]["deals"]]

    # a guest plays unranked: scored against the field, not on the ladder
    guest = Browser(server)
    played = play_through(guest, start(guest, name="Guest Gus"), picks["ann"])
    assert played["ranked"] is False and played["score"]["place"].endswith("of 5")
    assert browsers["ann"].http.get(f"/api/daily/{DAY}/greek/ladder").json()["players"] == 4

    # history and streak on the profile: today's only to its owner until the day closes
    own = browsers["ann"].http.get("/api/daily/players/ann").json()
    assert own["streak"] == 1 and own["history"][0]["place"] == by_name["ann"]["place"]
    assert httpx.get(f"{server.http}/api/daily/players/ann").json()["history"] == []

    # the day closes: the secret is published, it matches the commitment, records are public
    clock(f"{DAY[:8]}05T00:00:01+00:00")
    closed = httpx.get(f"{server.http}/api/daily/{DAY}/greek").json()
    assert closed["status"] == "closed" and closed["commitment"] == commitment
    assert hashlib.sha256(closed["secret"].encode()).hexdigest() == commitment
    public = httpx.get(f"{server.http}/api/daily/attempts/{attempts['bob']['id']}/record").json()
    assert all(r["rounds"][0]["fairness"]["secret"] == closed["secret"] for r in public)
    assert httpx.get(f"{server.http}/api/daily/{DAY}/greek/ladder").json()["players"] == 4
    assert httpx.get(f"{server.http}/api/daily/players/ann").json()["history"][0]["day"] == DAY
    path = tmp_path / "bob-daily.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in public))
    verify = [sys.executable, "-m", "kseri", "verify", str(path)]
    verified = subprocess.run(verify, capture_output=True, text=True)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # a record that claims another day's commitment fails
    forged = [r | {"daily": r["daily"] | {"commitment": "0" * 64}} for r in public]
    path.write_text("".join(json.dumps(r) + "\n" for r in forged))
    refused = subprocess.run(verify, capture_output=True, text=True)
    assert refused.returncode == 1 and "commitment is not the day's" in refused.stdout
    # duplicate style: two attempts compared deal by deal, where they parted, who gained
    alike = httpx.get(f"{server.http}/api/daily/attempts/{attempts['ann']['id']}/versus/"
                      f"{attempts['cyd']['id']}").json()
    assert alike["difference"] == 0 and all(d["parted"] is None for d in alike["deals"])
    versus = httpx.get(f"{server.http}/api/daily/attempts/{attempts['ann']['id']}/versus/"
                       f"{attempts['bob']['id']}").json()
    assert versus["names"] == ["ann", "bob"]
    assert versus["difference"] == sum(results["ann"]) - sum(results["bob"])
    for deal, compared in enumerate(versus["deals"]):
        assert compared["plays"] == [plays["ann"][deal], plays["bob"][deal]]
        parted = compared["parted"]
        assert compared["plays"][0][:parted] == compared["plays"][1][:parted]
        if parted is not None:
            assert compared["plays"][0][parted] != compared["plays"][1][parted]
            assert compared["plays"][0][parted][0] == 0  # the bots answer alike: a player parts first
    # the new day's daily is another set
    fresh = httpx.get(server.http + "/api/daily").json()
    assert fresh["day"] == "2026-12-05" and all(d["commitment"] != commitment for d in fresh["dailies"])


def test_bad_input_to_the_daily_changes_nothing(start_server: Callable[..., Server], database_url: str,
                                                 clock: Callable[[str], None]) -> None:
    """On SQLite and PostgreSQL (where the unique index refuses the second ranked attempt)."""
    server = start_server(database_url)
    eve = Browser(server)
    eve.sign_up("eve")
    attempt = start(eve, "pisti")
    # a second ranked attempt the same day
    message = error(eve.post(f"/api/daily/{DAY}/pisti/start"), 409, "daily-taken")
    assert "one ranked attempt" in message
    # days that are not open, families without a daily, nonsense
    error(eve.post("/api/daily/2026-12-05/pisti/start"), 409, "day-not-open")
    error(eve.post("/api/daily/2026-12-01/pisti/start"), 404, "no-such-day")
    error(eve.post(f"/api/daily/{DAY}/canasta/start"), 404, "no-such-daily")
    error(eve.post("/api/daily/yesterday/pisti/start"), 404, "no-such-day")
    error(eve.post(f"/api/daily/{DAY}/greek/start", csrf=False), 403, "bad-csrf")
    # plays: no token, a card not in hand, an unknown attempt
    path = f"/api/daily/attempts/{attempt['id']}"
    error(eve.http.post(path + "/play", json={"card": attempt["view"]["hand"][0]}), 401, "bad-token")
    headers = {"Authorization": f"Bearer {attempt['token']}"}
    missing = next(c for c in ("AS", "KH", "2C", "TD", "9S") if c not in attempt["view"]["hand"])
    error(eve.http.post(path + "/play", json={"card": missing}, headers=headers), 422, "bad-play")
    error(eve.http.post("/api/daily/attempts/nosuch/play", json={"card": "AS"}, headers=headers),
          404, "no-such-attempt")
    error(eve.http.get(f"/api/daily/{DAY}/pisti/ladder"), 403, "play-first")
    again = eve.http.get(path, headers=headers).json()
    assert again["view"] == attempt["view"]  # nothing changed
    # the attempt is finished once; more plays are refused
    done = play_through(eve, attempt, lambda hand: hand[0])
    error(eve.http.post(path + "/play", json={"card": "AS"}, headers=headers), 409, "daily-finished")
    assert eve.http.get(path, headers=headers).json()["score"] == done["score"]
    # the day closes: an unfinished attempt can no longer be played, a new one not started
    guest = Browser(server)
    unfinished = start(guest, "pisti")
    clock("2026-12-05T00:00:00+00:00")
    error(guest.http.post(f"/api/daily/attempts/{unfinished['id']}/play",
                          json={"card": unfinished["view"]["hand"][0]},
                          headers={"Authorization": f"Bearer {unfinished['token']}"}), 409, "day-closed")
    error(guest.post(f"/api/daily/{DAY}/pisti/start"), 409, "day-closed")
    # eve's finished attempt still counts once on the closed day's ladder
    closed = httpx.get(f"{server.http}/api/daily/{DAY}/pisti/ladder").json()
    assert [row["name"] for row in closed["ladder"]] == ["eve"] and closed["status"] == "closed"


def test_an_attempt_survives_a_kill_of_the_server(start_server: Callable[..., Server], sqlite_url: str,
                                                   clock: Callable[[str], None]) -> None:
    server = start_server(sqlite_url)
    fay = Browser(server)
    fay.sign_up("fay")
    attempt = start(fay, "pisti")
    headers = {"Authorization": f"Bearer {attempt['token']}"}
    path = f"/api/daily/attempts/{attempt['id']}"
    state = attempt
    for _ in range(5):
        answer = fay.http.post(path + "/play", json={"card": state["view"]["hand"][-1]}, headers=headers)
        assert answer.status_code == 200, answer.text
        state = answer.json()
    server.kill()
    server.start()
    again = fay.http.get(path, headers=headers).json()
    assert again["view"] == state["view"] and again["results"] == state["results"]
    finished = play_through(fay, again | {"token": attempt["token"]}, lambda hand: hand[-1])
    assert finished["score"]["place"] == "#1 of 1"
    error(fay.post(f"/api/daily/{DAY}/pisti/start"), 409, "daily-taken")

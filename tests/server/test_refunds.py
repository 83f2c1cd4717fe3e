"""Rating refunds through the real server on loopback: a player banned for unfair play has their
rated games annulled, and their opponents' ratings become what a recomputation of the rated
history without those games gives; the refunds show on the opponents' profiles and the annulled
games' pages; ``kseri admin refund`` does the same on the command line."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser, Player
from serverkit import Server
from test_moderation_routes import act, admin

from kseri.server.ratings import Rating, rate


def table_ratings(server: Server, table_id: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{server.http}/api/tables/{table_id}/ratings", timeout=10).json()
    return answer


def rated_game(server: Server, winner: Browser, loser: Browser) -> str:
    """A rated quick game between the two (the loser accepts the winner's seek), each plays a
    card, then the loser resigns; the table's id once it is rated."""
    first = winner.post("/api/seeks", {"family": "greek", "clock": 60})
    assert first.status_code == 201, first.text
    second = loser.post("/api/seeks", {"family": "greek", "clock": 60, "accept": first.json()["id"]})
    assert second.status_code == 201, second.text
    seats = [browser.http.get(f"/api/seeks/{seek.json()['id']}", params={"wait": 20}).json()
             for browser, seek in ((winner, first), (loser, second))]
    assert [seat["status"] for seat in seats] == ["paired", "paired"], seats
    table_id: str = seats[0]["table"]

    async def play() -> None:
        players = [await Player.connect(winner, table_id), await Player.connect(loser, table_id)]
        await asyncio.gather(*(player.play_once() for player in players))
        for player in players:
            await player.close()

    asyncio.run(play())
    resigned = loser.http.post(f"/api/tables/{table_id}/resign",
                               headers={"Authorization": f"Bearer {seats[1]['token']}"})
    assert resigned.status_code == 200, resigned.text
    deadline = time.monotonic() + 30
    while table_ratings(server, table_id).get("status") != "rated":
        assert time.monotonic() < deadline, table_ratings(server, table_id)
        time.sleep(0.1)
    return table_id


def profile(server: Server, username: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{server.http}/api/players/{username}", timeout=10).json()
    return answer


def test_a_ban_for_unfair_play_refunds_the_opponents_as_a_recomputation_without_the_games(
        start_server: Callable[..., Server], database_url: str) -> None:
    server = start_server(database_url)
    anna, bob, cheat, mod = (Browser(server) for _ in range(4))
    for name, browser in (("Anna", anna), ("Bob", bob), ("Cheat", cheat), ("Mod", mod)):
        browser.sign_up(name)
    assert admin("grant-moderator", "Mod", database_url=database_url).returncode == 0

    annulled = [rated_game(server, cheat, anna)]
    kept = [rated_game(server, anna, bob)]
    annulled.append(rated_game(server, cheat, bob))
    kept.append(rated_game(server, bob, anna))
    before = {name: next(r for r in profile(server, name)["ratings"] if r["family"] == "greek")
              for name in ("Anna", "Bob")}
    assert before["Anna"]["games"] == before["Bob"]["games"] == 3

    banned = act(mod, "Cheat", "ban", "assisted by a program", refund=True)
    assert banned.status_code == 200, banned.text
    done = banned.json()["refund"]
    assert sorted(done["games"]) == sorted(annulled) and set(done["refunds"]) == {"Anna", "Bob"}

    # the ratings a recomputation of the rated history without Cheat's games gives
    anna_rating, bob_rating = Rating(), Rating()
    for winner_first in (True, False):  # Anna beat Bob, then Bob beat Anna
        (after_anna,), (after_bob,) = rate([[anna_rating], [bob_rating]], [0, 1] if winner_first else [1, 0])
        anna_rating, bob_rating = after_anna, after_bob
    for name, expected in (("Anna", anna_rating), ("Bob", bob_rating)):
        now = next(r for r in profile(server, name)["ratings"] if r["family"] == "greek")
        assert abs(now["mu"] - expected.mu) < 1e-2 and abs(now["sigma"] - expected.sigma) < 1e-2, (name, now)
        assert now["games"] == 2
        assert [entry["table"] for entry in now["history"]] == kept
        change = round(expected.mu - before[name]["mu"])
        assert profile(server, name)["refunds"][0]["family"] == "greek"
        assert abs(profile(server, name)["refunds"][0]["change"] - change) <= 1
        assert profile(server, name)["refunds"][0]["games"] == 1
        assert abs(done["refunds"][name]["greek"] - (expected.mu - before[name]["mu"])) < 0.1
    assert profile(server, "Cheat")["ratings"] == []
    assert [table_ratings(server, table_id)["status"] for table_id in annulled] == ["annulled", "annulled"]
    last = {seat["username"]: seat for seat in table_ratings(server, kept[-1])["seats"]}
    assert abs(last["Anna"]["after"]["mu"] - anna_rating.mu) < 1e-2

    log = mod.http.get("/api/moderation/log").json()["log"]
    assert [(e["action"], e["by"], e["reason"], e["data"]) for e in log[:2]] == [
        ("refund", "Mod", "assisted by a program", {"games": 2, "families": ["greek"]}),
        ("ban", "Mod", "assisted by a program", {"until": None})]
    history = mod.http.get("/api/moderation/players/Anna").json()
    assert history["refunds"] == profile(server, "Anna")["refunds"]

    # on the command line: nothing left to annul for Cheat; Bob's games with Anna are annulled
    again = admin("refund", "Cheat", "--reason", "again", database_url=database_url)
    assert again.returncode == 0 and again.stdout == "Cheat: 0 rated games annulled\n", again.stderr
    by_operator = admin("refund", "Bob", "--games", "1", "--reason", "sandbagging", database_url=database_url)
    assert by_operator.returncode == 0, by_operator.stderr
    assert by_operator.stdout.startswith("Bob: 1 rated games annulled\n  Anna: greek ")
    after_anna = next(r for r in profile(server, "Anna")["ratings"] if r["family"] == "greek")
    (alone,), _ = rate([[Rating()], [Rating()]], [0, 1])  # only Anna's win over Bob is left
    assert abs(after_anna["mu"] - alone.mu) < 1e-2 and after_anna["games"] == 1
    assert table_ratings(server, kept[-1])["status"] == "annulled"
    for browser in (anna, bob, cheat, mod):
        browser.close()

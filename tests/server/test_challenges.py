"""Duplicate challenges on a real server (``server/challenges.py``): a player challenges another,
who accepts; both play the same deals against the same bots in their own time; the result is
the difference of points deal by deal; neither sees the other's results or plays before
finishing; an open challenge is taken by anyone; a challenge whose opponent never plays expires
and says so; blocks, guests and bad input are refused leaving everything as it was."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from playerkit import Browser
from serverkit import Server, error
from sqlalchemy.ext.asyncio import create_async_engine
from test_moderation_routes import act, admin

from kseri.server import backup, moderation
from kseri.server.db import Store
from kseri.server.ratings import Rating, rate

Json = dict[str, Any]


def ok(answer: httpx.Response, status: int = 200) -> Json:
    assert answer.status_code == status, answer.text
    found: Json = answer.json()
    return found


def signed_up(server: Server, *names: str) -> tuple[dict[str, Browser], dict[str, str]]:
    """A signed-in browser per name, and each account's id."""
    browsers, ids = {}, {}
    for name in names:
        browsers[name] = Browser(server)
        ids[name] = browsers[name].sign_up(name)["id"]
    return browsers, ids


def play_set(browser: Browser, challenge_id: str, pick: Callable[[list[str]], str],
             stop_after: int | None = None) -> Json:
    """Start (or resume) the player's set and play it to the end (or ``stop_after`` cards)."""
    state = ok(browser.post(f"/api/challenges/{challenge_id}/start"))
    played = 0
    while not state["finished"] and played != stop_after:
        card = pick(state["view"]["hand"])
        state = ok(browser.post(f"/api/challenges/{challenge_id}/play", {"card": card}))
        played += 1
    return state


def block(database_url: str, user_id: str, blocked_id: str) -> None:
    """``user_id`` blocks ``blocked_id``, on the server's database beside the server."""
    async def run() -> None:
        engine = create_async_engine(database_url)
        try:
            await moderation.block(Store(engine), user_id, blocked_id)
        finally:
            await engine.dispose()

    asyncio.run(run())


def test_a_challenge_from_invitation_to_result(start_server: Callable[..., Server], sqlite_url: str,
                                              clock: Callable[[str], None]) -> None:
    server = start_server(sqlite_url)
    people, _ = signed_up(server, "ann", "bob", "cyd")
    ann, bob, cyd = people["ann"], people["bob"], people["cyd"]
    made = ok(ann.post("/api/challenges", {"opponent": "Bob", "rules": "pisti", "deals": 4, "hours": 24}),
              201)
    cid = made["id"]
    assert (made["status"], made["you"], made["deals"], made["rules"]) == ("invited", "author", 4, "pisti")
    assert made["author"]["name"] == "ann" and made["opponent"]["name"] == "bob"
    assert made["secret"] is None and len(made["commitment"]) == 64
    assert made["deadline"] == "2026-12-05T12:00:00+00:00"
    # the invitation is listed for bob, not for ann
    assert [c["id"] for c in ok(bob.http.get("/api/challenges"))["invitations"]] == [cid]
    assert ok(ann.http.get("/api/challenges"))["invitations"] == []
    assert [c["id"] for c in ok(ann.http.get("/api/challenges"))["challenges"]] == [cid]
    # only bob answers; bob plays only once he has accepted
    error(cyd.post(f"/api/challenges/{cid}/accept"), 403, "not-invited")
    error(ann.post(f"/api/challenges/{cid}/accept"), 409, "own-challenge")
    error(bob.post(f"/api/challenges/{cid}/start"), 409, "challenge-not-accepted")
    error(cyd.post(f"/api/challenges/{cid}/start"), 403, "not-in-challenge")

    # ann plays her set at once, before bob has answered
    ann_first = ok(ann.post(f"/api/challenges/{cid}/start"))
    ann_done = play_set(ann, cid, lambda hand: hand[0])
    assert ann_done["finished"] and len(ann_done["results"]) == 4 and ann_done["rounds"] == 4
    accepted = ok(bob.post(f"/api/challenges/{cid}/accept"))
    assert accepted["status"] == "accepted" and accepted["you"] == "opponent"
    error(bob.post(f"/api/challenges/{cid}/accept"), 409, "challenge-answered")
    assert accepted["author"] == {"name": "ann", "progress": "finished", "results": None}  # hidden from bob
    error(bob.http.get(f"/api/challenges/{cid}/versus"), 403, "play-first")
    error(cyd.http.get(f"/api/challenges/{cid}/versus"), 409, "challenge-unfinished")
    assert ok(cyd.http.get(f"/api/challenges/{cid}"))["author"]["results"] is None
    assert ok(ann.http.get(f"/api/challenges/{cid}"))["author"]["results"] == ann_done["results"]

    # bob gets the same first hand; he plays part of his set, the server is killed, he resumes
    bob_first = ok(bob.post(f"/api/challenges/{cid}/start"))
    assert bob_first["view"]["hand"] == ann_first["view"]["hand"]
    part = play_set(bob, cid, lambda hand: hand[-1], stop_after=30)
    assert not part["finished"]
    shown = ok(bob.http.get(f"/api/challenges/{cid}"))
    assert shown["author"]["results"] is None and shown["opponent"]["progress"] == "playing"
    error(bob.http.get(f"/api/challenges/{cid}/versus"), 403, "play-first")
    server.kill()
    server.start()
    again = ok(bob.post(f"/api/challenges/{cid}/start"))
    assert again["view"] == part["view"] and again["results"] == part["results"]
    bob_done = play_set(bob, cid, lambda hand: hand[-1])

    # the result: deal by deal, the difference of points summed
    over = ok(ann.http.get(f"/api/challenges/{cid}"))
    assert over["status"] == "finished"
    assert over["difference"] == sum(ann_done["results"]) - sum(bob_done["results"])
    assert over["winner"] == ("ann" if over["difference"] > 0 else "bob" if over["difference"] < 0 else None)
    assert over["opponent"]["results"] == bob_done["results"]
    assert hashlib.sha256(over["secret"].encode()).hexdigest() == made["commitment"]
    versus = ok(httpx.get(f"{server.http}/api/challenges/{cid}/versus"))  # anyone, once both finished
    assert versus["names"] == ["ann", "bob"] and len(versus["deals"]) == 4
    assert versus["difference"] == over["difference"]
    for deal, compared in enumerate(versus["deals"]):
        assert compared["results"] == [ann_done["results"][deal], bob_done["results"][deal]]
        assert compared["difference"] == compared["results"][0] - compared["results"][1]
        parted = compared["parted"]
        if parted is not None:
            assert compared["plays"][0][:parted] == compared["plays"][1][:parted]
            assert compared["plays"][0][parted][0] == 0  # the bots answer alike: a player parts first
    error(bob.post(f"/api/challenges/{cid}/play", {"card": "AS"}), 409, "challenge-finished")


def test_an_open_challenge_and_players_who_play_alike(start_server: Callable[..., Server], sqlite_url: str,
                                                      clock: Callable[[str], None]) -> None:
    server = start_server(sqlite_url)
    people, _ = signed_up(server, "dee", "eve", "fay")
    made = ok(people["dee"].post("/api/challenges", {"rules": "greek", "deals": 4}), 201)
    cid = made["id"]
    assert made["status"] == "open" and made["open"] and made["opponent"] is None
    assert made["deadline"] == "2026-12-06T12:00:00+00:00"  # 48 hours unless told
    assert [c["id"] for c in ok(people["eve"].http.get("/api/challenges"))["open"]] == [cid]
    assert ok(people["dee"].http.get("/api/challenges"))["open"] == []  # not one's own
    error(people["eve"].post(f"/api/challenges/{cid}/decline"), 409, "open-challenge")
    taken = ok(people["eve"].post(f"/api/challenges/{cid}/accept"))
    assert taken["status"] == "accepted" and taken["opponent"]["name"] == "eve"
    error(people["fay"].post(f"/api/challenges/{cid}/accept"), 409, "challenge-answered")
    assert ok(people["fay"].http.get("/api/challenges"))["open"] == []
    # one card sent twice at the same moment is played once
    first = ok(people["eve"].post(f"/api/challenges/{cid}/start"))
    card = sorted(first["view"]["hand"])[0]
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: people["eve"].post(f"/api/challenges/{cid}/play", {"card": card}),
                                range(2)))
    assert sorted(a.status_code for a in answers) in ([200, 409], [200, 422])
    played = next(a.json() for a in answers if a.status_code == 200)
    assert ok(people["eve"].post(f"/api/challenges/{cid}/start")) == played
    # the same plays meet the same bots: the same results, a difference of nothing
    dee = play_set(people["dee"], cid, lambda hand: sorted(hand)[0])
    eve = play_set(people["eve"], cid, lambda hand: sorted(hand)[0])
    assert dee["results"] == eve["results"]
    versus = ok(people["fay"].http.get(f"/api/challenges/{cid}/versus"))
    assert versus["difference"] == 0 and all(d["parted"] is None for d in versus["deals"])
    assert versus["deals"][0]["plays"][0] == versus["deals"][0]["plays"][1]


def test_expiry_blocks_guests_and_bad_input(start_server: Callable[..., Server], database_url: str,
                                            clock: Callable[[str], None]) -> None:
    """On SQLite and PostgreSQL."""
    server = start_server(database_url)
    people, ids = signed_up(server, "gus", "hal", "ida", "joy")
    gus, hal, ida, joy = people["gus"], people["hal"], people["ida"], people["joy"]
    # guests cannot challenge, nor list challenges
    guest = Browser(server)
    error(guest.post("/api/challenges", {"opponent": "gus"}), 401, "not-signed-in")
    error(guest.http.get("/api/challenges"), 401, "not-signed-in")
    # bad input: each refused, nothing made
    error(gus.post("/api/challenges", {"opponent": "hal", "deals": 3}), 422, "bad-request")
    error(gus.post("/api/challenges", {"opponent": "hal", "deals": 17}), 422, "bad-request")
    assert "not 'canasta'" in error(gus.post("/api/challenges", {"opponent": "hal", "rules": "canasta"}),
                                    422, "bad-rules")
    error(gus.post("/api/challenges", {"opponent": "nobody"}), 404, "no-such-player")
    error(gus.post("/api/challenges", {"opponent": "GUS"}), 422, "self-challenge")
    error(gus.post("/api/challenges", {"opponent": "hal"}, csrf=False), 403, "bad-csrf")
    error(gus.http.get("/api/challenges/nosuch"), 404, "no-such-challenge")
    assert ok(gus.http.get("/api/challenges"))["challenges"] == []
    # a block stops a challenge both ways, and the taking of an open one
    block(database_url, ids["joy"], ids["ida"])
    error(ida.post("/api/challenges", {"opponent": "joy"}), 403, "blocked")
    error(joy.post("/api/challenges", {"opponent": "ida"}), 403, "blocked")
    offered = ok(ida.post("/api/challenges", {"deals": 4}), 201)
    error(joy.post(f"/api/challenges/{offered['id']}/accept"), 403, "blocked")
    assert ok(ida.http.get(f"/api/challenges/{offered['id']}"))["status"] == "open"

    # hal accepts but never plays: at the deadline the challenge expires, saying so
    hour = ok(gus.post("/api/challenges", {"opponent": "hal", "rules": "pisti", "deals": 4, "hours": 1}), 201)
    ok(hal.post(f"/api/challenges/{hour['id']}/accept"))
    play_set(gus, hour["id"], lambda hand: hand[0])
    unanswered = ok(gus.post("/api/challenges", {"opponent": "ida", "deals": 4, "hours": 1}), 201)
    declined = ok(gus.post("/api/challenges", {"opponent": "joy", "deals": 4}), 201)
    shown = ok(joy.post(f"/api/challenges/{declined['id']}/decline"))
    assert shown["status"] == "declined" and shown["secret"] is not None
    error(joy.post(f"/api/challenges/{declined['id']}/accept"), 409, "challenge-answered")
    error(gus.post(f"/api/challenges/{declined['id']}/start"), 409, "challenge-declined")
    clock("2026-12-04T13:00:00+00:00")
    expired = ok(hal.http.get(f"/api/challenges/{hour['id']}"))
    assert expired["status"] == "expired" and expired["never_played"] == ["hal"]
    assert expired["unfinished"] == [] and not expired["never_accepted"]
    assert expired["secret"] is not None and expired["difference"] is None
    assert expired["author"]["results"] is not None  # over: gus's results are no secret now
    error(hal.post(f"/api/challenges/{hour['id']}/start"), 409, "challenge-expired")
    error(hal.http.get(f"/api/challenges/{hour['id']}/versus"), 403, "play-first")
    never = ok(ida.http.get(f"/api/challenges/{unanswered['id']}"))
    assert never["status"] == "expired" and never["never_accepted"]
    assert never["never_played"] == ["gus", "ida"]
    error(ida.post(f"/api/challenges/{unanswered['id']}/accept"), 409, "challenge-expired")
    assert ok(ida.http.get("/api/challenges"))["invitations"] == []

    # a ceiling on challenges not over yet, per account
    for _ in range(19):  # ida's open one and 19 more make 20
        ok(ida.post("/api/challenges", {"deals": 4}), 201)
    error(ida.post("/api/challenges", {"deals": 4}), 429, "too-many-challenges")


def test_its_author_withdraws_a_challenge_until_the_other_side_plays(
        start_server: Callable[..., Server], database_url: str, clock: Callable[[str], None]) -> None:
    """On SQLite and PostgreSQL."""
    server = start_server(database_url)
    people, _ = signed_up(server, "kim", "lou", "max")
    kim, lou, nax = people["kim"], people["lou"], people["max"]
    made = ok(kim.post("/api/challenges", {"opponent": "lou", "deals": 4}), 201)
    cid = made["id"]
    play_set(kim, cid, lambda hand: hand[0], stop_after=3)  # the author's own plays do not matter
    error(nax.post(f"/api/challenges/{cid}/withdraw"), 403, "not-author")
    error(lou.post(f"/api/challenges/{cid}/withdraw"), 403, "not-author")
    error(kim.post("/api/challenges/nosuch/withdraw"), 404, "no-such-challenge")
    assert ok(kim.http.get(f"/api/challenges/{cid}"))["status"] == "invited"  # the refusals changed nothing
    gone = ok(kim.post(f"/api/challenges/{cid}/withdraw"))
    assert gone["status"] == "withdrawn" and gone["secret"] is not None
    assert ok(lou.http.get("/api/challenges"))["invitations"] == []
    error(kim.post(f"/api/challenges/{cid}/withdraw"), 409, "challenge-over")
    error(lou.post(f"/api/challenges/{cid}/accept"), 409, "challenge-withdrawn")
    error(kim.post(f"/api/challenges/{cid}/start"), 409, "challenge-withdrawn")
    error(kim.post(f"/api/challenges/{cid}/play", {"card": "AS"}), 409, "challenge-withdrawn")

    # accepted, not started yet: still the author's to withdraw; once the opponent starts, not
    accepted = ok(kim.post("/api/challenges", {"opponent": "lou", "deals": 4}), 201)["id"]
    ok(lou.post(f"/api/challenges/{accepted}/accept"))
    playing = ok(kim.post("/api/challenges", {"opponent": "max", "deals": 4}), 201)["id"]
    ok(nax.post(f"/api/challenges/{playing}/accept"))
    ok(nax.post(f"/api/challenges/{playing}/start"))
    assert ok(kim.post(f"/api/challenges/{accepted}/withdraw"))["status"] == "withdrawn"
    error(kim.post(f"/api/challenges/{playing}/withdraw"), 409, "opponent-playing")
    assert ok(kim.http.get(f"/api/challenges/{playing}"))["status"] == "accepted"
    # an open challenge withdrawn leaves the open list
    offered = ok(kim.post("/api/challenges", {"deals": 4}), 201)["id"]
    assert [c["id"] for c in ok(lou.http.get("/api/challenges"))["open"]] == [offered]
    ok(kim.post(f"/api/challenges/{offered}/withdraw"))
    assert ok(lou.http.get("/api/challenges"))["open"] == []
    # an expired one is over: nothing to withdraw
    clock("2026-12-07T12:00:00+00:00")
    error(kim.post(f"/api/challenges/{playing}/withdraw"), 409, "challenge-over")


def rating_of(server: Server, name: str, family: str) -> Json:
    """The player's rating in ``family`` as the profile shows it (``{}``: not rated)."""
    ratings = ok(httpx.get(f"{server.http}/api/players/{name}", timeout=10))["ratings"]
    found: Json = next((r for r in ratings if r["family"] == family), {})
    return found


def played_challenge(server: Server, author: Browser, opponent: Browser, name: str, rated: bool,
                     picks: tuple[Callable[[list[str]], str], Callable[[list[str]], str]]) -> Json:
    """A challenge of 4 pisti deals from ``author`` to ``name``, accepted and played by both."""
    cid = ok(author.post("/api/challenges", {"opponent": name, "rules": "pisti", "deals": 4, "rated": rated}),
             201)["id"]
    ok(opponent.post(f"/api/challenges/{cid}/accept"))
    play_set(author, cid, picks[0])
    play_set(opponent, cid, picks[1])
    return ok(author.http.get(f"/api/challenges/{cid}"))


def checked(database_url: str) -> backup.Check:
    """The database checked as ``kseri restore`` checks one, beside the running server."""
    async def run() -> backup.Check:
        engine = create_async_engine(database_url)
        try:
            return await backup.check(Store(engine), database_url)
        finally:
            await engine.dispose()

    return asyncio.run(run())


def ranks_of(difference: int) -> list[int]:
    """The documented mapping: the sign of the summed difference, a draw at 0."""
    return [0, 0] if difference == 0 else [0, 1] if difference > 0 else [1, 0]


def test_a_rated_challenge_counts_once_and_a_refund_recomputes_without_it(
        start_server: Callable[..., Server], database_url: str, clock: Callable[[str], None],
        tmp_path: Path) -> None:
    """On SQLite and PostgreSQL."""
    server = start_server(database_url)
    people, _ = signed_up(server, "Pat", "Quin", "Ray", "Mod")
    pat, quin, ray, mod = people["Pat"], people["Quin"], people["Ray"], people["Mod"]
    assert admin("grant-moderator", "Mod", database_url=database_url).returncode == 0
    first_card, last_card = (lambda hand: hand[0]), (lambda hand: hand[-1])

    casual = played_challenge(server, pat, quin, "Quin", False, (first_card, last_card))
    assert casual["status"] == "finished" and not casual["rated"] and casual["rating"] is None
    assert rating_of(server, "Pat", "pisti") == {}  # casual: no rating

    cheat = played_challenge(server, pat, quin, "Quin", True, (first_card, last_card))
    assert cheat["rated"] and cheat["rating"]["status"] == "rated"
    (pat_after,), (quin_after,) = rate([[Rating()], [Rating()]], ranks_of(cheat["difference"]))
    assert abs(rating_of(server, "Pat", "pisti")["mu"] - pat_after.mu) < 1e-2
    assert abs(rating_of(server, "Quin", "pisti")["mu"] - quin_after.mu) < 1e-2
    shown = cheat["rating"]["players"]
    assert shown["Quin"]["after"]["mu"] == round(quin_after.mu, 3)
    assert shown["Quin"]["before"]["rating"] == 1500
    history = rating_of(server, "Pat", "pisti")["history"]
    assert [(h["table"], h["challenge"]) for h in history] == [(None, cheat["id"])]

    kept = played_challenge(server, quin, ray, "Ray", True, (lambda hand: sorted(hand)[0], max))
    (quin_now,), _ = rate([[quin_after], [Rating()]], ranks_of(kept["difference"]))
    assert abs(rating_of(server, "Quin", "pisti")["mu"] - quin_now.mu) < 1e-2
    assert rating_of(server, "Quin", "pisti")["games"] == 2

    # Pat is banned with a refund: the rated challenge with Pat is annulled; Quin's rating is
    # what the history without it gives (the game with Ray from a new rating)
    banned = act(mod, "Pat", "ban", "assisted by a program", refund=True)
    assert banned.status_code == 200, banned.text
    assert banned.json()["refund"]["games"] == [f"challenge:{cheat['id']}"]
    (quin_alone,), (ray_alone,) = rate([[Rating()], [Rating()]], ranks_of(kept["difference"]))
    for name, expected in (("Quin", quin_alone), ("Ray", ray_alone)):
        now = rating_of(server, name, "pisti")
        assert now["games"] == 1
        assert abs(now["mu"] - expected.mu) < 1e-2 and abs(now["sigma"] - expected.sigma) < 1e-2
    assert rating_of(server, "Pat", "pisti") == {}
    assert ok(quin.http.get(f"/api/challenges/{cheat['id']}"))["rating"] == {"status": "annulled"}
    assert ok(quin.http.get(f"/api/challenges/{kept['id']}"))["rating"]["status"] == "rated"
    found = checked(database_url)  # as a restore checks it: every rating its history's last
    assert found.problems == [] and found.ratings == 2


def test_a_challenges_records_verify_against_its_secret(
        start_server: Callable[..., Server], sqlite_url: str, clock: Callable[[str], None],
        tmp_path: Path) -> None:
    server = start_server(sqlite_url)
    people, _ = signed_up(server, "sam", "tia")
    sam, tia = people["sam"], people["tia"]
    cid = ok(sam.post("/api/challenges", {"opponent": "tia", "rules": "greek", "deals": 4}), 201)["id"]
    ok(tia.post(f"/api/challenges/{cid}/accept"))
    play_set(sam, cid, lambda hand: hand[0])
    # not over yet: no records, for anyone
    error(sam.http.get(f"/api/challenges/{cid}/records/author"), 409, "challenge-not-over")
    play_set(tia, cid, lambda hand: hand[-1], stop_after=30)  # a deal of greek is 24 cards of hers
    clock("2026-12-06T13:00:00+00:00")  # expired: over, tia's finished deal only
    secret = ok(httpx.get(f"{server.http}/api/challenges/{cid}"))["secret"]
    verify = [sys.executable, "-m", "kseri", "verify"]
    for side, count in (("author", 4), ("opponent", 1)):
        answer = httpx.get(f"{server.http}/api/challenges/{cid}/records/{side}")
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"] == "application/x-ndjson"
        assert answer.headers["content-disposition"] == f'attachment; filename="challenge-{cid}-{side}.jsonl"'
        records = [json.loads(line) for line in answer.text.splitlines()]
        assert len(records) == count
        assert all(r["rounds"][0]["fairness"]["secret"] == secret for r in records)
        assert [r["challenge"]["round"] for r in records] == list(range(len(records)))
        path = tmp_path / f"{side}.jsonl"
        path.write_text(answer.text)  # the download as it is
        verified = subprocess.run([*verify, str(path)], capture_output=True, text=True)
        assert verified.returncode == 0 and "verified" in verified.stdout, verified.stdout + verified.stderr
    forged = [json.loads(line) for line in
              httpx.get(f"{server.http}/api/challenges/{cid}/records/author").text.splitlines()]
    for record in forged:
        record["rounds"][0]["fairness"]["secret"] = "0" * 64
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in forged))
    refused = subprocess.run([*verify, str(path)], capture_output=True, text=True)
    assert refused.returncode == 1 and "does not match the commitment" in refused.stdout
    error(httpx.get(f"{server.http}/api/challenges/{cid}/records/nobody"), 422, "bad-request")

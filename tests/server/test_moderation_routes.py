"""Reports and the moderators' routes through the real server on loopback: a report (from a
profile or tied to a game) reaches the queue, rate-limited; only moderators see the queue and
act; each action (warn, mute, rated ban, ban, rename, closing a table, closing a report) is
logged with who, when and why, and a sanctioned player is refused with the moderator's reason;
such an account can still be deleted."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import httpx
from playerkit import Browser
from serverkit import Server
from test_moderation import on_database

from kseri.server import moderation


def admin(*args: str, database_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kseri", "admin", *args, "--db", database_url],
                          capture_output=True, text=True, timeout=60)


def act(browser: Browser, username: str, action: str, reason: str, **more: Any) -> httpx.Response:
    body = {"action": action, "reason": reason, **more}
    return browser.post(f"/api/moderation/players/{username}/actions", body)


def test_reports_reach_the_queue_and_moderators_act_with_reasons(
        start_server: Callable[..., Server], database_url: str) -> None:
    server = start_server(database_url)
    eleni, nikos, rude = Browser(server), Browser(server), Browser(server)
    ids = {name: browser.sign_up(name)["id"] for name, browser in
           (("Eleni", eleni), ("Nikos", nikos), ("Rude1", rude))}

    # a report from a game: the table where the reported player sat
    created = rude.post("/api/tables", {"rules": "greek"})
    table_id = created.json()["table"]["id"]
    assert nikos.post(f"/api/tables/{table_id}/join", {"name": "Nikos"}).status_code == 200
    filed = nikos.post("/api/reports", {"username": "rude1", "reason": "abuse", "note": " insults ",
                                        "table": table_id})
    assert filed.status_code == 201, filed.text
    from_profile = nikos.post("/api/reports", {"username": "Rude1", "reason": "offensive-name"})
    assert from_profile.status_code == 201
    for body, status, code in (
            ({"username": "Rude1", "reason": "rude"}, 422, "bad-request"),
            ({"username": "Rude1", "reason": "other", "note": "x" * 281}, 422, "bad-request"),
            ({"username": "Eleni", "reason": "abuse", "table": table_id}, 404, "unknown-table"),
            ({"username": "Nikos", "reason": "abuse"}, 409, "self"),
            ({"username": "Ghost", "reason": "abuse"}, 404, "unknown-player")):
        refused = nikos.post("/api/reports", body)
        assert (refused.status_code, refused.json()["error"]["code"]) == (status, code), refused.text
    assert nikos.post("/api/reports", {"username": "Rude1", "reason": "other"}, csrf=False).status_code == 403
    anonymous = httpx.post(f"{server.http}/api/reports", json={"username": "Rude1", "reason": "other"})
    assert anonymous.status_code == 401
    for _ in range(moderation.REPORTS_PER_DAY):  # one account's allowance
        assert eleni.post("/api/reports", {"username": "Rude1", "reason": "stalling"}).status_code == 201
    flooded = eleni.post("/api/reports", {"username": "Rude1", "reason": "stalling"})
    assert flooded.status_code == 429 and "at most 10 reports a day" in flooded.text

    # only moderators see the queue
    assert eleni.http.get("/api/moderation/reports").status_code == 403
    assert act(eleni, "Rude1", "warn", "x").json()["error"]["code"] == "not-moderator"
    assert admin("grant-moderator", "Eleni", database_url=database_url).returncode == 0
    queue = eleni.http.get("/api/moderation/reports").json()["reports"]
    assert [(r["reporter"], r["reported"], r["reason"], r["note"], r["table"]) for r in queue[:2]] == [
        ("Nikos", "Rude1", "abuse", "insults", table_id), ("Nikos", "Rude1", "offensive-name", None, None)]
    assert len(queue) == 2 + moderation.REPORTS_PER_DAY

    history = eleni.http.get("/api/moderation/players/rude1").json()
    assert history["username"] == "Rude1" and len(history["reports"]) == len(queue)
    assert history["signals"] == [] and history["sanctions"] == {}

    # warn, mute, rated ban, ban: each refused without a reason, each shown to the player
    assert act(eleni, "Rude1", "warn", "").status_code == 422
    assert act(eleni, "Rude1", "warn", "mind your words").status_code == 200
    assert act(eleni, "Rude1", "mute", "insults at the table").status_code == 200
    assert on_database(database_url, lambda store: moderation.muted(store, ids["Rude1"]))
    assert not on_database(database_url, lambda store: moderation.muted(store, ids["Nikos"]))
    assert act(eleni, "Rude1", "rated-ban", "boosting a friend", days=7).status_code == 200
    rated = rude.post("/api/seeks", {"family": "greek", "clock": 20})
    assert rated.status_code == 403 and rated.json()["error"]["code"] == "rated-banned"
    assert rated.json()["error"]["message"].endswith(": boosting a friend")
    casual = rude.post("/api/seeks", {"family": "greek", "clock": 20, "casual": True})
    assert casual.status_code == 201, casual.text
    assert act(eleni, "Rude1", "warn", "x", refund=True).json()["error"]["code"] == "bad-action"
    assert act(eleni, "Rude1", "ban", "threats").status_code == 200
    assert rude.http.get(f"/api/seeks/{casual.json()['id']}").status_code == 404  # withdrawn by the ban
    for path, body in (("/api/seeks", {"family": "greek", "clock": 20, "casual": True}),
                       ("/api/tables", {"rules": "greek"})):
        banned = rude.post(path, body)
        assert banned.status_code == 403, banned.text
        assert banned.json()["error"] == {"code": "banned", "message": "you are banned: threats"}
    standing = rude.http.get("/api/moderation/standing").json()
    assert {kind: entry["reason"] for kind, entry in standing["sanctions"].items()} == {
        "mute": "insults at the table", "rated-ban": "boosting a friend", "ban": "threats"}
    assert [w["reason"] for w in standing["warnings"]] == ["mind your words"]
    assert standing["moderator"] is False
    assert act(eleni, "Rude1", "unban", "appeal heard").status_code == 200
    assert act(eleni, "Rude1", "unban", "again").json()["error"]["code"] == "not-sanctioned"

    # rename an offensive username; close a table not yet begun; close a report
    renamed = eleni.post("/api/moderation/players/Rude1/rename", {"username": "Polite",
                                                                   "reason": "offensive"})
    assert renamed.json() == {"username": "Polite"}
    assert httpx.get(f"{server.http}/api/tables/{table_id}").json()["seats"][0]["name"] == "Polite"
    waiting = nikos.post("/api/tables", {"rules": "greek"}).json()["table"]["id"]
    closing = eleni.post(f"/api/moderation/tables/{waiting}/close", {"reason": "spam"})
    assert closing.json() == {"closed": waiting}
    assert httpx.get(f"{server.http}/api/tables/{waiting}").status_code == 404
    assert eleni.post("/api/moderation/tables/nothing/close", {"reason": "spam"}).status_code == 404
    closed = eleni.post(f"/api/moderation/reports/{queue[0]['id']}/close", {"reason": "renamed and banned"})
    assert closed.status_code == 200
    assert len(eleni.http.get("/api/moderation/reports").json()["reports"]) == len(queue) - 1

    log = eleni.http.get("/api/moderation/log").json()["log"]
    assert [(e["by"], e["action"], e["reason"]) for e in log[:10]] == [
        ("Eleni", "close-report", "renamed and banned"), ("Eleni", "close-table", "spam"),
        ("Eleni", "rename", "offensive"), ("Eleni", "unban", "appeal heard"), ("Eleni", "ban", "threats"),
        ("Eleni", "rated-ban", "boosting a friend"), ("Eleni", "mute", "insults at the table"),
        ("Eleni", "warn", "mind your words"),
        ("the operator", "grant-moderator", "granted on the server's machine")]
    assert log[1]["data"] == {"table": waiting}
    assert all(isinstance(entry["at"], float) for entry in log)

    # an account blocked, reported and sanctioned may still be deleted; the log stays
    assert nikos.post("/api/blocks", {"username": "Polite"}).status_code == 201
    assert rude.post("/api/blocks", {"username": "Eleni"}).status_code == 201
    gone = rude.post("/api/account/delete", {"password": "correct horse battery"})
    assert gone.status_code == 204, gone.text
    assert nikos.http.get("/api/blocks").json() == {"blocks": []}
    assert len(eleni.http.get("/api/moderation/log").json()["log"]) == len(log)
    for browser in (eleni, nikos, rude):
        browser.close()

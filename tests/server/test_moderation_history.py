"""A player's history on the moderators' page, through the real server on loopback: served a
page at a time (each request replays at most a page of tables), every game once and in order
across the pages; the assisted-play signal (analysed rated games far more accurate than players
of their rating) and the seek-spam signal (many seeks, nearly all withdrawn) beside boosting."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from playerkit import Browser
from serverkit import LAX, Server
from sqlalchemy import insert, select
from test_moderation import on_database
from test_moderation_routes import admin
from test_refunds import rated_game

from kseri.rules import Rules
from kseri.server import db
from kseri.server.players import analyses
from kseri.server.ratings import rating_history

SEEDED = 130
"""Finished casual games stored for the player besides their rated ones."""


def clone(source: str, copies: list[tuple[str, dict[str, str], float, list[float]]]) -> Callable[..., Any]:
    """Work for ``on_database``: copies of the rated table ``source`` (its log, so that it replays),
    each ``(id, {account in the source: account in the copy}, created, accuracy per seat)``,
    rated (a history entry per seat at 1510) and analysed."""
    async def work(store: db.Store) -> None:
        async with store.engine.begin() as connection:
            stored = await db._load(connection, source)
            assert stored is not None
            for table_id, accounts, created, accuracy in copies:
                row = {**stored.row, "id": table_id, "created": created}
                await connection.execute(insert(db.tables).values(row))
                for seat in stored.seats:
                    await connection.execute(insert(db.seats).values(
                        {**seat, "table_id": table_id, "user_id": accounts[seat["user_id"]]}))
                for table in (db.rounds, db.events):
                    found = await connection.execute(select(table).where(table.c.table_id == source))
                    rows = [{**row, "table_id": table_id} for row in found.mappings()]
                    await connection.execute(insert(table), rows)
                for seat in stored.seats:
                    await connection.execute(insert(rating_history).values(
                        user_id=accounts[seat["user_id"]], family="greek", table_id=table_id, at=created,
                        mu=1510.0, sigma=200.0))
                review = {"players": [{"accuracy": value} for value in accuracy]}
                await connection.execute(insert(analyses).values(table_id=table_id, data=json.dumps(review)))
    return work


def seed_casual(user_id: str, start: float) -> Callable[..., Any]:
    """Work for ``on_database``: :data:`SEEDED` finished casual tables where ``user_id`` held
    seat 0, older than ``start``, two at a time created at the same moment (the cursor's tie)."""
    rules = json.dumps(Rules.from_spec("greek").options())

    async def work(store: db.Store) -> None:
        async with store.engine.begin() as connection:
            for number in range(SEEDED):
                table_id = f"seeded-{number:03d}"
                await connection.execute(insert(db.tables).values(
                    id=table_id, created=start - 100 - 10 * (number // 2), rules=rules, casual=True,
                    public=False, clock=None, first_dealer=0, finished=True, rematch_of=None, rematch=None,
                    rated=False))
                for seat in (0, 1):
                    await connection.execute(insert(db.seats).values(
                        table_id=table_id, seat=seat, kind="human", level=None, name=f"P{seat}",
                        token_hash=None, user_id=user_id if seat == 0 else None))
    return work


def test_a_long_history_is_served_in_pages_with_the_assisted_play_and_seek_spam_signals(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url, limits=LAX + ",seeks_per_minute=1000")
    eleni, nikos, maria, petros = (Browser(server) for _ in range(4))
    ids = {name: browser.sign_up(name)["id"] for name, browser in
           (("Eleni", eleni), ("Nikos", nikos), ("Maria", maria), ("Petros", petros))}
    assert admin("grant-moderator", "Eleni", database_url=sqlite_url).returncode == 0
    real = [rated_game(server, nikos, maria) for _ in range(2)]

    # Nikos, assisted: 12 more rated games against Maria, 25 points above her accuracy; an honest
    # population of 40 games between Maria and Petros, at about 70
    now = time.time()
    same = {ids["Nikos"]: ids["Nikos"], ids["Maria"]: ids["Maria"]}
    swapped = {ids["Nikos"]: ids["Petros"], ids["Maria"]: ids["Maria"]}
    stored = on_database(sqlite_url, lambda store: db.Store.load(store, real[0]))
    assert stored is not None
    nikos_seat = next(s["seat"] for s in stored.seats if s["user_id"] == ids["Nikos"])

    def accuracy(subject: float, other: float) -> list[float]:
        return [subject, other] if nikos_seat == 0 else [other, subject]

    assisted = [(f"assisted-{n:02d}", same, now - 10 - n, accuracy(95.0 + n % 3, 69.0 + n % 4))
                for n in range(12)]
    honest = [(f"honest-{n:02d}", swapped, now - 50 - n, accuracy(68.0 + n % 5, 70.0 + n % 3))
              for n in range(40)]
    on_database(sqlite_url, clone(real[0], assisted + honest))
    on_database(sqlite_url, seed_casual(ids["Nikos"], now - 200))

    # and Nikos spams the seek list: 31 seeks, each withdrawn
    for _ in range(31):
        made = nikos.post("/api/seeks", {"family": "greek", "clock": 20, "casual": True})
        assert made.status_code == 201, made.text
        withdrawn = nikos.http.delete(f"/api/seeks/{made.json()['id']}", headers={"X-CSRF-Token": nikos.csrf})
        assert withdrawn.is_success

    path = "/api/moderation/players/Nikos"
    spam = "Nikos made 33 seeks within 60 minutes, 31 of them left unpaired"
    deadline = time.monotonic() + 60
    while True:  # the seeks are logged by the pairing's next rounds
        first = eleni.http.get(path, timeout=60).json()
        found = {signal["kind"]: signal for signal in first["signals"]}
        if found.get("seek-spam", {}).get("evidence") == spam or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert {"assisted", "seek-spam", "boosting"} <= set(found), first["signals"]
    assert found["assisted"]["evidence"].startswith("Nikos's accuracy over 12 analysed rated games is ")
    assert found["assisted"]["evidence"].endswith("standard errors)")
    assert set(found["assisted"]["tables"]) == {table for table, *_ in assisted}
    assert found["seek-spam"]["evidence"] == spam
    assert found["boosting"]["evidence"].startswith("Maria lost 14 of 14 rated games against Nikos")
    honest_signals = eleni.http.get("/api/moderation/players/Petros").json()["signals"]
    assert "assisted" not in {signal["kind"] for signal in honest_signals}

    # the pages: 50 games each, newest first, every game of Nikos once
    pages = [first]
    while pages[-1]["next"] is not None:
        answer = eleni.http.get(f"{path}/games", params={"before": pages[-1]["next"]}, timeout=60)
        assert answer.status_code == 200, answer.text
        pages.append(answer.json())
    listed = [game["table"] for page in pages for game in page["games"]]
    assert [len(page["games"]) for page in pages] == [50, 50, 2 + 12 + SEEDED - 100]
    expected = set(real) | {table for table, *_ in assisted} | {f"seeded-{n:03d}" for n in range(SEEDED)}
    assert len(listed) == len(set(listed)) and set(listed) == expected
    created = [game["created"] for page in pages for game in page["games"]]
    assert created == sorted(created, reverse=True)
    by_table = {game["table"]: game for page in pages for game in page["games"]}
    game = by_table["assisted-01"]
    assert (game["family"], game["rated"], game["seat"], game["accuracy"], game["result"], game["ending"],
            game["rating"]) == ("greek", True, nikos_seat, 96.0, "win", "resigned", [1510, 1510])
    assert 0 < game["plays"] <= 40
    assert by_table["seeded-000"]["rated"] is False and "result" not in by_table["seeded-000"]
    smaller = eleni.http.get(f"{path}/games", params={"limit": 7}).json()
    assert [game["table"] for game in smaller["games"]] == listed[:7]
    bad = eleni.http.get(f"{path}/games", params={"before": "yesterday"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad-cursor"
    assert eleni.http.get(f"{path}/games", params={"limit": 101}).status_code == 422
    assert nikos.http.get(f"{path}/games").status_code == 403
    for browser in (eleni, nikos, maria, petros):
        browser.close()

"""Moderation in the page: a player blocks another from their profile, reports them, sees the
block listed on the account page and undoes it there; a moderator (granted with ``kseri admin
grant-moderator``) finds the report in the queue of /moderation, opens the player's history and
warns them with a reason, which the player then reads on their account page. A player blocks a
guest met at a table from the match's end; a moderator reads a long history a page at a time
with its seek-spam signal, bans a guest and an address and lifts a ban. Laptop and phone
sizes, axe-clean."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_helpers import (
    PASSWORD,
    PHONE,
    SIZES,
    ContextFactory,
    PageErrors,
    axe_findings,
    open_lobby,
    screenshot,
    sign_up_on_the_page,
)
from playwright.sync_api import expect
from serverkit import LAX, Server

from kseri.rules import Rules


@dataclass
class Running:
    url: str
    database: str


@pytest.fixture
def moderated_server(tmp_path: Path) -> Iterator[Running]:
    """A server of its own (fresh accounts), and its database's URL for ``kseri admin``."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}"
    server = Server(database, {"--limits": LAX + ",signups_per_hour=20"}).start()
    yield Running(server.http, database)
    server.stop()


def test_block_report_undo_and_a_moderators_warning(
        moderated_server: Running, new_context: ContextFactory, page_errors: PageErrors) -> None:
    url = moderated_server.url
    eleni = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    nikos = page_errors.watch(new_context(PHONE).new_page())
    sign_up_on_the_page(eleni, url, "Eleni")
    sign_up_on_the_page(nikos, url, "Nikos")

    # from Nikos's profile: block him, then report him
    eleni.goto(f"{url}/p/Nikos")
    expect(eleni.locator("#profile-name")).to_have_text("Nikos")
    eleni.click("#block-button")
    expect(eleni.locator("#blocking-note")).to_have_text("You block Nikos.")
    expect(eleni.locator("#block-button")).to_have_text("Unblock")
    eleni.select_option("#report-reason", "abuse")
    eleni.fill("#report-note", "insults after every game")
    eleni.click("#report-submit")
    expect(eleni.locator("#report-notice")).to_have_text("Thank you: the moderators will look into it.")

    # the account page lists the block and undoes it
    eleni.goto(f"{url}/account")
    blocked = eleni.locator("#block-list li[data-name='Nikos']")
    expect(blocked).to_be_visible()
    assert axe_findings(eleni) == []
    screenshot(eleni, "moderation-blocks-laptop")
    blocked.get_by_role("button", name="Unblock Nikos").click()
    expect(eleni.locator("#block-list")).to_have_text("You block nobody.")

    # the moderator's page: refused before the role, then the queue, the history, a warning
    eleni.goto(f"{url}/moderation")
    expect(eleni.locator("#moderation-refused")).to_have_text("Only moderators may see this page.")
    granted = subprocess.run([sys.executable, "-m", "kseri", "admin", "grant-moderator", "Eleni",
                              "--db", moderated_server.database], capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr
    eleni.goto(f"{url}/account")
    expect(eleni.locator("#account-moderation")).to_be_visible()
    eleni.click("#account-moderation")
    queue = eleni.locator("#reports-queue li.report")
    expect(queue).to_have_count(1)
    expect(queue).to_contain_text("Abusive behaviour")
    expect(queue).to_contain_text("reported by Eleni")
    expect(queue.locator("blockquote")).to_have_text("insults after every game")
    queue.get_by_role("button", name="Nikos").click()
    history = eleni.locator("#player-history")
    expect(history.locator("h2")).to_have_text("History of Nikos")
    eleni.select_option("#action-kind", "warn")
    eleni.fill("#action-reason", "keep the table friendly")
    eleni.click("#action-submit")
    expect(eleni.locator("#moderation-notice")).to_have_text("Done.")
    expect(eleni.locator("#moderation-log li").first).to_contain_text(
        "Eleni: warn Nikos, because: keep the table friendly")
    assert axe_findings(eleni) == []
    screenshot(eleni, "moderation-page-laptop")

    # the player reads the warning on their account page (phone)
    nikos.goto(f"{url}/account")
    expect(nikos.locator("#standing")).to_have_text("A moderator warns you: keep the table friendly")
    expect(nikos.locator("#account-moderation")).to_have_count(0)
    assert axe_findings(nikos) == []
    screenshot(nikos, "moderation-warning-phone")


def seed_history(database: str, username: str, games: int, seeks: int) -> None:
    """Store ``games`` finished casual games of ``username`` and ``seeks`` quick-game seeks it
    withdrew within the last hour (straight into the server's SQLite file, beside the server)."""
    path = database.removeprefix("sqlite+aiosqlite:///")
    rules = json.dumps(Rules.from_spec("greek").options())
    now = time.time()
    with sqlite3.connect(path, timeout=30) as connection:
        (user_id,) = connection.execute("SELECT id FROM users WHERE username = ?", (username,)).fetchone()
        for number in range(games):
            table_id = f"seeded-{number:03d}"
            connection.execute("INSERT INTO tables (id, created, rules, casual, public, clock, first_dealer, "
                               "finished, rated) VALUES (?, ?, ?, 1, 0, NULL, 0, 1, 0)",
                               (table_id, now - 3600 - number, rules))
            connection.execute("INSERT INTO seats (table_id, seat, kind, name, user_id) "
                               "VALUES (?, 0, 'human', ?, ?)", (table_id, username, user_id))
        for number in range(seeks):
            connection.execute("INSERT INTO seek_log (user_id, at, outcome) VALUES (?, ?, 'withdrawn')",
                               (user_id, now - 60 * number))


def test_a_guest_blocked_at_the_table_and_banned_and_a_history_a_page_at_a_time(
        moderated_server: Running, new_context: ContextFactory, page_errors: PageErrors) -> None:
    url = moderated_server.url
    eleni = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    gus = page_errors.watch(new_context(PHONE).new_page())
    sign_up_on_the_page(eleni, url, "Eleni")

    # a guest opens a table for friends; Eleni joins it, resigns, and blocks him from the end panel
    open_lobby(gus, url)
    gus.fill("#player-name", "Gus")
    gus.check("#opponents-friends")
    gus.click("#create-game")
    invite = gus.locator("#invite-link")
    expect(invite).to_be_visible()
    link = invite.input_value()
    table_id = link.rsplit("/", 1)[-1]
    eleni.goto(link)
    eleni.fill("#join-name", "Eleni")
    eleni.click("#join-button")
    for page in (eleni, gus):
        expect(page.locator(".hand .card-button")).to_have_count(6, timeout=30_000)
    eleni.click("#resign-button")
    eleni.click("#resign-confirm")
    expect(eleni.locator(".overlay-panel .match-end")).to_be_visible(timeout=30_000)
    eleni.locator("#seat-blocks").get_by_role("button", name="Block Gus").click()
    expect(eleni.locator("#seat-blocks [role=status]")).to_have_text(
        "You block Gus: you will not be paired, nor join or watch each other's tables.")
    assert axe_findings(eleni) == []
    screenshot(eleni, "moderation-block-guest-laptop", full_page=False)

    # the account page lists the guest blocked, with the table where they met
    eleni.goto(f"{url}/account")
    blocked = eleni.locator("#guest-block-list li")
    expect(blocked).to_have_count(1)
    expect(blocked).to_contain_text("Guest Gus, met at")
    assert axe_findings(eleni) == []
    screenshot(eleni, "moderation-guest-blocks-laptop")

    # the moderator's page: a history of 61 games served 50 at a time, with the seek-spam signal
    granted = subprocess.run([sys.executable, "-m", "kseri", "admin", "grant-moderator", "Eleni",
                              "--db", moderated_server.database], capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr
    seed_history(moderated_server.database, "Eleni", 60, 31)
    eleni.goto(f"{url}/moderation")
    eleni.fill("#lookup-username", "Eleni")
    eleni.locator("#player-lookup button").click()
    history = eleni.locator("#player-history")
    expect(history.locator("#history-games li")).to_have_count(50, timeout=30_000)
    expect(history.locator("li[data-kind='seek-spam']")).to_have_text(
        "Seek spam: Eleni made 31 seeks within 60 minutes, 31 of them left unpaired ")
    eleni.click("#history-more")
    expect(history.locator("#history-games li")).to_have_count(61, timeout=30_000)
    expect(eleni.locator("#history-more")).to_have_count(0)
    tables = history.locator("#history-games li").evaluate_all("items => items.map((li) => li.dataset.table)")
    assert len(set(tables)) == 61 and table_id in tables

    # bans: the guest by the seat he held, and an address; both listed with their reasons
    eleni.fill("#ban-guest-table", table_id)
    eleni.fill("#ban-guest-seat", "1")
    eleni.locator("#ban-guest-form input[name=reason]").fill("spam in the lobby")
    eleni.locator("#ban-guest-form input[name=days]").fill("2")
    eleni.locator("#ban-guest-form button[type=submit]").click()
    expect(eleni.locator("#moderation-notice")).to_have_text("Done.")
    guest_ban = eleni.locator("#ban-list li[data-kind='guest']")
    expect(guest_ban).to_contain_text(f"guest Gus, seat 1 at table {table_id}")
    expect(guest_ban).to_contain_text("spam in the lobby")
    eleni.fill("#ban-address", "203.0.113.9")
    eleni.locator("#ban-address-form input[name=reason]").fill("a flood of tables")
    eleni.locator("#ban-address-form button[type=submit]").click()
    expect(eleni.locator("#ban-list li[data-kind='address']")).to_contain_text(
        "address 203.0.113.9 · until lifted")
    expect(eleni.locator("#moderation-log li").first).to_contain_text(
        "Eleni: ban-address 203.0.113.9, because: a flood of tables")
    assert axe_findings(eleni) == []
    screenshot(eleni, "moderation-bans-laptop")

    # the banned guest is refused a new table, and told why
    refused = gus.evaluate("""async () => (await fetch('/api/tables', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: '{}'})).json()""")
    assert refused["error"]["code"] == "banned", refused
    assert refused["error"]["message"].endswith(": spam in the lobby")

    # the same page on a phone: the history, its signals and the bans; a ban lifted there
    phone = page_errors.watch(new_context(PHONE).new_page())
    phone.goto(f"{url}/account")
    phone.fill("#signin-username", "Eleni")
    phone.fill("#signin-password", PASSWORD)
    phone.click("#signin-submit")
    expect(phone.locator("#nav-profile")).to_have_text("Eleni")
    phone.goto(f"{url}/moderation")
    phone.fill("#lookup-username", "Eleni")
    phone.locator("#player-lookup button").click()
    expect(phone.locator("#history-games li")).to_have_count(50, timeout=30_000)
    lift = phone.locator("#ban-list li[data-kind='guest'] form")
    lift.locator("input[name=reason]").fill("appeal heard")
    lift.locator("button").click()
    expect(phone.locator("#ban-list li[data-kind='guest']")).to_have_count(0)
    assert axe_findings(phone) == []
    screenshot(phone, "moderation-bans-phone")

"""Moderation in the page: a player blocks another from their profile, reports them, sees the
block listed on the account page and undoes it there; a moderator (granted with ``kseri admin
grant-moderator``) finds the report in the queue of /moderation, opens the player's history and
warns them with a reason, which the player then reads on their account page. Laptop and phone
sizes, axe-clean."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_helpers import PHONE, SIZES, ContextFactory, PageErrors, axe_findings, screenshot
from playwright.sync_api import Page, expect
from serverkit import LAX, Server

PASSWORD = "correct horse battery"


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


def sign_up(page: Page, url: str, username: str) -> None:
    page.goto(f"{url}/account")
    page.fill("#signup-username", username)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_url(re.compile(rf"/p/{username}$"))
    expect(page.locator("#nav-profile")).to_have_text(username)


def test_block_report_undo_and_a_moderators_warning(
        moderated_server: Running, new_context: ContextFactory, page_errors: PageErrors) -> None:
    url = moderated_server.url
    eleni = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    nikos = page_errors.watch(new_context(PHONE).new_page())
    sign_up(eleni, url, "Eleni")
    sign_up(nikos, url, "Nikos")

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

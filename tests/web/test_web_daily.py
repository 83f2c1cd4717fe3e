"""The daily deal in the page (js/daily.js), in real Chromium: from the lobby to the day's set,
three deals played card by card, the score beside the master's, and the ladder; at a laptop's
size (1366×657) and a phone's (390×844)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import PHONE, ContextFactory, PageErrors, axe_findings, screenshot, sign_up
from playwright.sync_api import BrowserContext, Page, expect
from serverkit import LAX, Server

LAPTOP = {"width": 1366, "height": 657}
DAY = "2026-12-04"


@pytest.fixture
def daily_server(tmp_path: Path) -> Iterator[str]:
    """A server of its own (a fresh day's ladder)."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}",
                    {"--bot-delay": "0.05", "--limits": LAX}).start()
    yield server.http
    server.stop()


def play_the_daily(page: Page, limit: int = 200) -> None:
    """Click the first card of the hand whenever one can be played, until the score shows."""
    for _ in range(limit):
        page.locator(".daily-score, .daily-hand .daily-hand-card:not([disabled])").first.wait_for()
        if page.locator(".daily-score").count():
            return
        page.locator(".daily-hand .daily-hand-card:not([disabled])").first.click()
    pytest.fail("the daily did not end")


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_the_daily_from_the_lobby_to_the_ladder(daily_server: str, new_context: ContextFactory,
                                                page_errors: PageErrors, viewport: dict[str, int],
                                                size: str) -> None:
    context = new_context(viewport)
    username = f"daily{size}"
    sign_up(context, daily_server, username)
    page = page_errors.watch(context.new_page())
    page.goto(f"{daily_server}/")
    expect(page.locator("#daily-link")).to_be_visible()
    screenshot(page, f"daily-{size}-lobby", full_page=False)
    page.click("#daily-link")
    page.wait_for_url(re.compile(r"/daily$"))
    expect(page.locator(".daily-item")).to_have_count(2)
    expect(page.locator(".daily-commitment").first).to_contain_text("…")
    screenshot(page, f"daily-{size}-days")
    page.click(".daily-start[data-family='pisti']")
    page.wait_for_url(re.compile(r"/daily/pisti$"))
    expect(page.locator("#daily-deal")).to_have_text("Deal 1 of 3")
    expect(page.locator(".daily-hand .daily-hand-card")).to_have_count(4)
    screenshot(page, f"daily-{size}-play")
    findings = axe_findings(page)
    assert findings == [], "\n".join(findings)
    play_the_daily(page)
    score = page.locator(".daily-score")
    expect(score.locator("h2")).to_have_text("Done: #1 of 1, 50%")
    expect(score.locator(".daily-deal-line")).to_have_count(3)
    master = re.compile(r"the master made [+-]?\d+ here")
    expect(score.locator(".daily-deal-line").first).to_contain_text(master)
    expect(page.locator(".daily-ladder h2")).to_contain_text("1 ranked")
    expect(page.locator(".daily-me td").nth(1)).to_have_text(username)
    screenshot(page, f"daily-{size}-ladder")
    findings = axe_findings(page)
    assert findings == [], "\n".join(findings)
    # a reload resumes at the score; a second ranked attempt is refused with the ladder
    page.reload()
    expect(page.locator(".daily-score")).to_be_visible()
    page.goto(f"{daily_server}/daily")
    page.click(".daily-start[data-family='pisti']")
    expect(page.locator(".daily-error")).to_have_text(
        "You have already played this daily today. Here is the ladder.")
    expect(page.locator(".daily-me")).to_be_visible()
    # the profile shows the streak and the day's place
    page.click("#nav-profile")
    expect(page.locator("#daily-streak")).to_have_text("Daily streak: 1 day")
    expect(page.locator(".daily-history-list li")).to_contain_text("#1 of 1 · 50%")
    screenshot(page, f"daily-{size}-profile")
    # nothing wider than the window
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def play_by_api(context: BrowserContext, url: str, username: str, pick: int) -> str:
    """Sign ``username`` up in ``context`` and play the day's Pisti set through the API,
    always the card at ``pick`` in the hand; the attempt's id."""
    csrf = sign_up(context, url, username)
    state = context.request.post(f"{url}/api/daily/{DAY}/pisti/start", data={},
                                 headers={"X-CSRF-Token": csrf}).json()
    token: str = state["token"]
    attempt: str = state["id"]
    while not state["finished"]:
        state = context.request.post(f"{url}/api/daily/attempts/{attempt}/play",
                                     data={"card": state["view"]["hand"][pick]},
                                     headers={"Authorization": f"Bearer {token}"}).json()
    return attempt


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_a_closed_day_side_by_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   new_context: ContextFactory, page_errors: PageErrors,
                                   viewport: dict[str, int], size: str) -> None:
    clock = tmp_path / "now.txt"
    clock.write_text(f"{DAY}T10:00:00+00:00")
    monkeypatch.setenv("KSERI_CLOCK_FILE", str(clock))
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", {"--limits": LAX}).start()
    try:
        ann = new_context(viewport)
        play_by_api(ann, server.http, "annie", 0)
        play_by_api(new_context(viewport), server.http, "bobby", -1)
        clock.write_text("2026-12-05T10:00:00+00:00")  # the day closes
        page = page_errors.watch(ann.new_page())
        page.goto(f"{server.http}/p/annie")
        page.locator(".daily-history-list a").click()
        page.wait_for_url(re.compile(rf"/daily/pisti/{DAY}$"))
        expect(page.locator(".daily-ladder h2")).to_contain_text("2 ranked")
        page.locator(".daily-versus-link").click()
        page.wait_for_url(re.compile(r"/daily/versus/\w+/\w+$"))
        expect(page.locator(".daily-versus-deal")).to_have_count(3)
        expect(page.locator("#daily-gain")).to_contain_text("points over the three deals")
        expect(page.locator(".daily-parted").first).to_be_visible()  # open: the first deal where they parted
        expect(page.locator(".daily-versus-deal[open]")).to_have_count(1)
        screenshot(page, f"daily-{size}-versus")
        findings = axe_findings(page)
        assert findings == [], "\n".join(findings)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        server.stop()

"""'Your turn' when the page is not looked at (notices.js), in real Chromium with the page
hidden (another tab in front, emulated): a turn is told by the title, the tab's icon badge
(navigator.setAppBadge, else a dot on the favicon), the turn sound and a notification
(permission granted in the test); each of the notices' settings, remembered on the device,
stops its own channel and no other; a challenge received while hidden is told too."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import (
    DESKTOP,
    PHONE,
    ContextFactory,
    PageErrors,
    axe_findings,
    screenshot,
    seq_of,
    settle,
    sign_up,
    start_bot_game,
)
from playwright.sync_api import Page, expect
from serverkit import LAX, Server
from test_web_pass_play import NOTIFICATIONS

BADGES = """
(() => {
  window.__badges = [];
  navigator.setAppBadge = async (n) => { window.__badges.push("set"); };
  navigator.clearAppBadge = async () => { window.__badges.push("clear"); };
})();
"""
"""A spy on the Badging API: each setAppBadge and clearAppBadge the page calls, in order."""

NO_BADGES = """
(() => {
  delete Navigator.prototype.setAppBadge;
  delete Navigator.prototype.clearAppBadge;
})();
"""
"""A browser without the Badging API (the page falls back to a dot on the favicon)."""

LOUD = "▶ Your turn · Kseri"
QUIET = re.compile(r"^(● )?Kseri$")


def channels_seen(page: Page) -> dict[str, object]:
    """What each channel has done so far: the title now, badges set, turn sounds, notifications."""
    seen: dict[str, object] = page.evaluate("""() => ({
      title: document.title,
      badges: window.__badges.filter(b => b === "set").length,
      sounds: window.kseriEffects.sounds.filter(s => s.name === "turn" && s.status === "played").length,
      notes: window.__notes.filter(n => n.tag === "kseri-turn").length,
    })""")
    return seen


def play_to_my_next_turn(page: Page) -> None:
    """Play a card while the page is hidden; wait until the turn has come back to this page."""
    card = page.locator(".table-screen.my-turn .hand .card-button").first
    expect(card).to_be_visible(timeout=30_000)
    seq = seq_of(page)
    card.click()
    page.wait_for_function("""seq => Number(document.querySelector(".table-screen").dataset.seq) >= seq + 2
      && document.querySelector(".table-screen.my-turn .hand .card-button")""", arg=seq, timeout=30_000)


def come_back_and_leave(page: Page) -> None:
    """The player looks at the page (the title and badge are cleared), then goes away again."""
    page.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")
    expect(page).to_have_title(QUIET)
    page.evaluate("window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))")


def set_channel(page: Page, switch: str, on: bool) -> None:
    page.click("#notice-settings-button")
    box = page.locator(f"#{switch}")
    expect(box).to_be_visible()
    if on:
        box.check()
    else:
        box.uncheck()
    page.click("#notice-settings-close")
    expect(page.locator("#notice-settings")).to_have_count(0)


@pytest.mark.parametrize(("size", "viewport"), [("laptop", DESKTOP), ("phone", PHONE)])
def test_each_channel_tells_a_hidden_turn_and_its_setting_stops_it_alone(
        server: str, new_context: ContextFactory, page_errors: PageErrors, size: str,
        viewport: dict[str, int]) -> None:
    context = new_context(viewport=viewport, permissions=["notifications"])
    context.add_init_script(NOTIFICATIONS)
    context.add_init_script(BADGES)
    page = page_errors.watch(context.new_page())
    start_bot_game(page, server, target=None)
    # nothing asked on load: the notification is turned on from the settings, in context
    page.click("#notice-settings-button")
    expect(page.locator("#notice-notification")).not_to_be_checked()
    for channel in ("title", "badge", "sound"):
        expect(page.locator(f"#notice-{channel}")).to_be_checked()
    page.locator("#notice-notification").check()
    expect(page.locator("#notice-notification")).to_be_checked()
    settle(page)
    screenshot(page, f"notice-settings-{size}")
    assert axe_findings(page) == []
    page.click("#notice-settings-close")

    expect(page.locator(".table-screen.my-turn .hand .card-button").first).to_be_visible(timeout=30_000)
    before = channels_seen(page)
    play_to_my_next_turn(page)
    told = channels_seen(page)
    assert told["title"] == LOUD
    assert told["badges"] == before["badges"] + 1  # type: ignore[operator]
    assert told["sounds"] == before["sounds"] + 1  # type: ignore[operator]
    assert told["notes"] == before["notes"] + 1  # type: ignore[operator]
    come_back_and_leave(page)
    assert page.evaluate("window.__badges[window.__badges.length - 1]") == "clear"

    # each switch turned off in turn: its channel stops, the others still on still tell
    expected = {"badges": int(str(told["badges"])), "sounds": int(str(told["sounds"])),
                "notes": int(str(told["notes"]))}
    off = set()
    for switch, channel in (("notice-title", "title"), ("notice-badge", "badges"),
                            ("notice-sound", "sounds"), ("notice-notification", "notes")):
        set_channel(page, switch, on=False)
        off.add(channel)
        play_to_my_next_turn(page)
        seen = channels_seen(page)
        assert seen["title"] == "● Kseri", f"the title told of the turn after {switch} off"
        for counted in expected:
            if counted not in off:
                expected[counted] += 1
        assert {key: seen[key] for key in expected} == expected, f"after {switch} off"
        come_back_and_leave(page)
    # remembered on this device
    assert page.evaluate("JSON.parse(localStorage.getItem('kseri.notices'))") == {
        "title": False, "badge": False, "sound": False}
    assert page.evaluate("localStorage.getItem('kseri.notify')") == "0"
    page.reload()
    page.click("#notice-settings-button")
    for switch in ("title", "badge", "sound", "notification"):
        expect(page.locator(f"#notice-{switch}")).not_to_be_checked()


def test_without_the_badging_api_the_favicon_gets_a_dot(server: str, new_context: ContextFactory,
                                                        page_errors: PageErrors) -> None:
    context = new_context(viewport=PHONE)
    context.add_init_script(NOTIFICATIONS)
    context.add_init_script(NO_BADGES)
    context.add_init_script("window.__badges = []")
    page = page_errors.watch(context.new_page())
    start_bot_game(page, server, target=None)
    icon = page.locator('link[rel="icon"]')
    # the first turn may have been told already (the page hidden from the start): seen, it is not
    expect(page.locator(".table-screen.my-turn .hand .card-button").first).to_be_visible(timeout=30_000)
    come_back_and_leave(page)
    expect(icon).to_have_attribute("href", "/static/cards/icon.svg")
    play_to_my_next_turn(page)
    expect(icon).to_have_attribute("data-badge", "1")
    assert (icon.get_attribute("href") or "").startswith("data:image/svg+xml,")
    come_back_and_leave(page)
    expect(icon).to_have_attribute("href", "/static/cards/icon.svg")


@pytest.fixture
def accounts_server(tmp_path: Path) -> Iterator[str]:
    """A server of its own, where two accounts sign up."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", {"--limits": LAX}).start()
    yield server.http
    server.stop()


def test_a_challenge_received_while_hidden_is_told(accounts_server: str, new_context: ContextFactory,
                                                   page_errors: PageErrors) -> None:
    url = accounts_server
    ann, bob = new_context(PHONE), new_context(DESKTOP, permissions=["notifications"])
    bob.add_init_script(NOTIFICATIONS)
    bob.add_init_script(BADGES)
    ann_csrf = sign_up(ann, url, "anntells")
    sign_up(bob, url, "bobhears")
    page = page_errors.watch(bob.new_page())
    page.goto(f"{url}/")
    bell = page.locator("#lobby-notify")
    bell.click()  # the player's own tap asks for the permission (granted in this context)
    expect(bell).to_have_attribute("aria-pressed", "true")
    # the invitations there when the page was hidden (none) are known: the lobby's and the watcher's
    page.wait_for_function("""() => performance.getEntriesByType("resource")
      .filter(e => e.name.endsWith("/api/challenges")).length >= 2""", timeout=30_000)
    made = ann.request.post(f"{url}/api/challenges", data={"opponent": "bobhears", "deals": 4, "hours": 1},
                            headers={"X-CSRF-Token": ann_csrf})
    assert made.ok, made.text()
    page.wait_for_function("() => window.__notes.some(n => n.tag === 'kseri-challenge')", timeout=90_000)
    note = page.evaluate("window.__notes.find(n => n.tag === 'kseri-challenge')")
    assert note["title"] == "Challenge received · Kseri"
    assert "anntells" in note["body"]
    expect(page).to_have_title("Challenge received · Kseri")
    assert "set" in page.evaluate("window.__badges")
    sounds = page.evaluate("window.kseriEffects.sounds")
    assert {"name": "notice", "status": "played"} in sounds
    assert page.evaluate("window.__notes.filter(n => n.tag === 'kseri-challenge').length") == 1

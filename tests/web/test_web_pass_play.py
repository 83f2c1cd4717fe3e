"""Pass and play, "your turn" notices and the lean wire in the page (real Chromium):
two people at one device play a match from the lobby at phone and laptop sizes, a hand-over
screen between their turns and never two hands at once (on screen, or in what the page is
sent); a hidden page is told of its turn by its title and a notification; the page follows
the table by protocol v2's deltas."""

from __future__ import annotations

import itertools
import re
import time

import pytest
from browser_helpers import DESKTOP, PHONE, ContextFactory, PageErrors, open_lobby, screenshot, settle
from playwright.sync_api import Page, expect

RECORD_SOCKET = """
(() => {
  window.__shown = [];
  window.__frames = [];
  const Real = window.WebSocket;
  window.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const message = JSON.parse(event.data);
        window.__frames.push(message.type);
        if (message.type === "shown") window.__shown.push(message.seat);
        if (message.type === "state" && message.view) window.__shown.push(["state", message.view.seat]);
      });
    }
  };
})();
"""
"""Records what the page is sent: each ``shown`` seat and each full state's view seat."""


def start_pass_and_play(page: Page, url: str) -> str:
    open_lobby(page, url)
    page.fill("#player-name", "Eleni")
    page.check("#opponents-device")
    page.check("#mode-2")
    page.click(".options summary")
    page.fill("#opt-target", "1")
    page.locator("#opt-target").dispatch_event("change")
    page.select_option("#opt-target_rule", "higher-wins")
    page.click("#create-game")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    return page.url.rsplit("/", 1)[1]


def views_sent(page: Page) -> list[object]:
    return list(page.evaluate("window.__shown"))


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("laptop", DESKTOP)])
def test_two_people_play_a_match_on_one_device(server: str, new_context: ContextFactory,
                                               page_errors: PageErrors, size: str,
                                               viewport: dict[str, int]) -> None:
    context = new_context(viewport=viewport, has_touch=size == "phone", is_mobile=size == "phone")
    context.add_init_script(RECORD_SOCKET)
    page = page_errors.watch(context.new_page())
    start_pass_and_play(page, server)
    handover = page.locator("#handover-show")
    done = page.locator('.overlay-panel[data-key^="match"]')
    taps = 0
    shot = False
    deadline = time.monotonic() + 240
    while not done.count():
        assert time.monotonic() < deadline, "the match did not end in 240 s"
        assert page.locator(".hand").count() <= 1
        if handover.count() and handover.is_enabled():
            assert page.locator(".hand").count() == 0, "a hand on screen during the hand-over"
            seat = int(page.locator("#handover").get_attribute("data-seat") or -1)
            if not shot:
                settle(page)
                screenshot(page, f"pass-play-handover-{size}")
                shot = True
            handover.click()
            expect(page.locator(f'.me[data-seat="{seat}"] .hand')).to_be_visible()
            if taps == 1:
                settle(page)
                screenshot(page, f"pass-play-hand-{size}")
            taps += 1
            card = page.locator(".table-screen.my-turn .hand .card-button").first
            card.click()
            expect(page.locator(f'.me[data-seat="{seat}"] .hand')).to_have_count(0)
        elif page.locator("#next-round").count():
            page.click("#next-round")
        else:
            page.wait_for_timeout(50)
    assert taps >= 10
    settle(page)
    screenshot(page, f"pass-play-end-{size}")
    sent = views_sent(page)
    shown = [entry for entry in sent if not isinstance(entry, list)]
    assert set(shown) >= {0, 1, None}
    # the page is sent one person's view at a time: no seat's view follows another's directly
    for before, after in itertools.pairwise(shown):
        assert before is None or after is None, f"seat {after}'s view right after seat {before}'s"
    # every full state is the view of the seat shown then
    current = None
    for entry in sent:
        if isinstance(entry, list):
            assert entry[1] == current, f"a view of seat {entry[1]} while seat {current} was shown"
        else:
            current = entry
    assert "delta" in page.evaluate("window.__frames")


NOTIFICATIONS = """
(() => {
  Object.defineProperty(Document.prototype, "hidden", {
    get: () => window.__hidden !== false, configurable: true });
  Object.defineProperty(Document.prototype, "visibilityState", {
    get: () => (window.__hidden !== false ? "hidden" : "visible"), configurable: true });
  window.__notes = [];
  const Real = window.Notification;
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notes.push({ title, body: options && options.body, tag: options && options.tag });
    }
  }
  Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recorded;
})();
"""
"""The page as hidden (another tab in front), and each notification recorded as it is shown."""


def test_a_hidden_page_is_told_of_its_turn(server: str, new_context: ContextFactory,
                                           page_errors: PageErrors) -> None:
    context = new_context(viewport=DESKTOP, permissions=["notifications"])
    context.add_init_script(NOTIFICATIONS)
    page = page_errors.watch(context.new_page())
    open_lobby(page, server)
    page.fill("#player-name", "Eleni")
    page.check("#opponents-bots")
    page.check("#level-greedy")
    page.click("#create-game")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    bell = page.locator("#notify-button")
    expect(bell).to_have_attribute("aria-pressed", "false")
    bell.click()  # the player's own tap asks for the permission (granted in this context)
    expect(bell).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("localStorage.getItem('kseri.notify')") == "1"
    before = page.evaluate("window.__notes.length")
    # play until the turn comes back: the bot's play makes it this player's turn again
    card = page.locator(".table-screen.my-turn .hand .card-button").first
    expect(card).to_be_visible()
    card.click()
    page.wait_for_function("n => window.__notes.length > n", arg=before, timeout=30000)
    note = page.evaluate("window.__notes[window.__notes.length - 1]")
    assert note["title"] == "▶ Your turn · Kseri" and note["tag"] == "kseri-turn"
    expect(page).to_have_title("▶ Your turn · Kseri")
    # back in front: the title is the table's again
    page.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")
    expect(page).to_have_title(re.compile(r"^(● )?Kseri$"))
    # turned off, no notification, though the title still changes while hidden
    bell.click()
    expect(bell).to_have_attribute("aria-pressed", "false")
    page.evaluate("window.__hidden = true")
    count = page.evaluate("window.__notes.length")
    card = page.locator(".table-screen.my-turn .hand .card-button").first
    expect(card).to_be_visible()
    card.click()
    expect(page).to_have_title("▶ Your turn · Kseri")
    assert page.evaluate("window.__notes.length") == count


def test_a_hidden_lobby_is_told_its_quick_game_was_found(server: str, new_context: ContextFactory,
                                                         page_errors: PageErrors) -> None:
    waiting = new_context(viewport=DESKTOP, permissions=["notifications"])
    waiting.add_init_script(NOTIFICATIONS)
    waiting.add_init_script("localStorage.setItem('kseri.name', 'Ana')")
    ana = page_errors.watch(waiting.new_page())
    bo = page_errors.watch(new_context(viewport=PHONE).new_page())
    ana.goto(f"{server}/")
    bell = ana.locator("#lobby-notify")
    expect(bell).to_have_attribute("aria-pressed", "false")
    bell.click()
    expect(bell).to_have_attribute("aria-pressed", "true")
    ana.select_option("#quick-family", "greek")
    ana.select_option("#quick-clock", "30")
    ana.click("#quick-find")
    expect(ana.locator("#quick-status")).to_contain_text("Looking for an opponent")
    bo.goto(f"{server}/")
    bo.locator("#seek-list li", has_text="Ana (casual)").get_by_role("button", name="Play Ana").click()
    ana.wait_for_function("() => window.__notes.some(n => n.tag === 'kseri-paired')", timeout=30000)
    note = ana.evaluate("window.__notes.find(n => n.tag === 'kseri-paired')")
    assert note["title"] == "Game found · Kseri"
    ana.wait_for_url(re.compile(r"/t/[^/#]+$"), timeout=15000)

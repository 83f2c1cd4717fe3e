"""A phone-sized screen: the lobby and the table fit, cards are big enough to read and tap."""

from __future__ import annotations

import re

from browser_helpers import PHONE, ContextFactory, PageErrors, open_lobby, play_one, screenshot, settle
from playwright.sync_api import expect


def test_phone_viewport(server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(PHONE, has_touch=True, is_mobile=True).new_page())
    open_lobby(page, server)
    # One tap from the lobby to a game: the button is on the first screen.
    expect(page.locator("#quick-play")).to_be_in_viewport()
    # signed out, the top bar offers the leaderboard and a sign-in link, and nothing else
    expect(page.locator("#account-nav")).to_have_text(re.compile(r"^\s*Leaderboard\s*Sign in\s*$"))
    screenshot(page, "lobby-phone")
    page.locator("#quick-play").tap()
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    expect(page.locator(".hand .card-button")).to_have_count(6)
    page.wait_for_selector(".table-screen.my-turn")
    settle(page)
    boxes = page.evaluate("""() => [...document.querySelectorAll('.hand .card-button')].map(n => {
        const r = n.getBoundingClientRect(); return [r.left, r.right, r.width]; })""")
    assert len(boxes) == 6
    for box in boxes:
        left, right, width = box
        assert left >= 0 and right <= PHONE["width"], f"a card is off the screen: {box}"
        assert width >= 56, f"cards are too small to read on a phone: {width}px"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways ({width}px)"
    expect(page.locator("#centre-pile")).to_be_in_viewport()
    expect(page.locator(".hand")).to_be_in_viewport()
    play_one(page, "tap")
    expect(page.locator(".hand .card-button")).to_have_count(5)
    screenshot(page, "table-phone")

    # The four-colour option: diamonds turn blue and clubs green; hearts and spades stay.
    def suit_colours() -> dict[str, str]:
        colours: dict[str, str] = page.evaluate("""() => Object.fromEntries(['C', 'D', 'H', 'S'].map(s => {
            const probe = document.createElement('span'); probe.className = 'suit-' + s;
            document.body.append(probe); const colour = getComputedStyle(probe).color; probe.remove();
            return [s, colour]; }))""")
        return colours

    two = suit_colours()
    assert two["D"] == two["H"] and two["C"] == two["S"]
    page.check("#four-colour")
    four = suit_colours()
    assert len(set(four.values())) == 4, four
    page.reload()
    expect(page.locator("#four-colour")).to_be_checked()

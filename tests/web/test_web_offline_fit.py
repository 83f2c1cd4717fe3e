"""The offline tables fit the window as the online one does (offline.js and passplay-offline.js
draw in the online table's grid, style.css's .table-screen): at a laptop's 1366×657 and a
phone's 390×844, the hand's cards, the centre's pile and the play controls (Rules, the sound,
New game, the hand-over's button, the match's end) lie inside the window, the laptop's with no
scrolling at all, against the computer at every table size and in pass and play. Screenshots
at both sizes."""

from __future__ import annotations

import json

import pytest
from browser_helpers import SIZES, ContextFactory, PageErrors, axe_findings, screenshot, settle
from playwright.sync_api import Page, expect
from test_web_offline_upload import one_play_from_the_end

from kseri.server.api.offline import PYODIDE_DIR, PYODIDE_FILES

LOAD_MS = 120_000  # Pyodide's start on a loaded machine
PLAYABLE = ".offline-hand .card-button[aria-disabled=false]"
HAND = ".offline-hand .card-button"
CONTROLS = ("#offline-rules", "#sound-button", "#offline-new")
PRESETS = ("greek", "pisti", "three-player", "partnership", "faro")
"""The offline presets of every table size (2 to 5 players; Pisti shows the stock's last card)."""

BOXES = """(selectors) => ({
  window: [innerWidth, innerHeight],
  page: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
  boxes: selectors.map(s => [s, [...document.querySelectorAll(s)].map(n => {
    const r = n.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })]),
})"""
"""The window's size, the page's, and the boxes of what each selector finds."""


@pytest.fixture(autouse=True)
def pyodide_installed() -> None:
    missing = [name for name in PYODIDE_FILES if not (PYODIDE_DIR / name).is_file()]
    assert not missing, (f"Pyodide is missing from {PYODIDE_DIR}: scripts/test installs it "
                         "(npm install --prefix build/pyodide pyodide@0.29)")


def check_in_window(page: Page, size: str, selectors: tuple[str, ...]) -> None:
    """At the window's ``size``, everything each selector finds (at least one) lies inside the
    window, and the page never scrolls sideways; at a laptop's size, not down either (on a phone
    the table's side, the last plays, follows below the hand as the online table's does)."""
    page.set_viewport_size(SIZES[size])
    settle(page)
    found = page.evaluate(BOXES, list(selectors))
    width, height = found["window"]
    assert [width, height] == [SIZES[size]["width"], SIZES[size]["height"]], found
    for selector, boxes in found["boxes"]:
        assert boxes, f"{size}: {selector} is not on the page"
        for left, top, right, bottom in boxes:
            assert left >= 0 and top >= 0 and right <= width and bottom <= height, \
                f"{size}: {selector} at {[left, top, right, bottom]} is outside the {width}×{height} window"
    assert found["page"][0] <= width, f"{size}: the page scrolls sideways: {found}"
    if size == "laptop":
        assert found["page"][1] <= height, f"{size}: the page scrolls down: {found}"


def hand_width(page: Page) -> float:
    width: float = page.locator(HAND).first.evaluate("(n) => n.getBoundingClientRect().width")
    return width


def test_the_table_against_the_computer_fits_a_laptop_and_a_phone(server: str, new_context: ContextFactory,
                                                                  page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    page.goto(f"{server}/offline")
    for preset in PRESETS:
        page.set_viewport_size(SIZES["laptop"])
        page.select_option("#offline-preset", preset)
        page.select_option("#offline-level", "greedy")
        page.locator("#offline-play").click(timeout=LOAD_MS)
        expect(page.locator(PLAYABLE).first).to_be_visible(timeout=LOAD_MS)
        check_in_window(page, "laptop", (HAND, ".pile-top", *CONTROLS))
        assert hand_width(page) >= 54, f"{preset}: the cards are too small to read on a laptop"
        if preset == "greek":
            screenshot(page, "offline-fit-table-laptop")
            assert axe_findings(page) == []
            for size in SIZES:  # and every other common window: the hand and the pile in sight
                check_in_window(page, size, (HAND, ".pile-top"))
        check_in_window(page, "phone", (HAND, ".pile-top", *CONTROLS))
        assert hand_width(page) >= 54, f"{preset}: the cards are too small to read on a phone"
        screenshot(page, f"offline-fit-{preset}-phone")
        page.locator("#offline-new").click()
        expect(page.locator("#offline-play")).to_be_visible()


def test_the_match_end_against_the_computer_fits(server: str, new_context: ContextFactory,
                                                 page_errors: PageErrors) -> None:
    context = new_context(SIZES["laptop"])
    saved = json.dumps(one_play_from_the_end())
    context.add_init_script(f"localStorage.setItem('kseri.offline.game', {saved})")
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/offline")
    page.locator(PLAYABLE).first.click(timeout=LOAD_MS)
    expect(page.locator("#offline-download")).to_be_visible(timeout=60_000)
    check_in_window(page, "laptop", ("#offline-download", *CONTROLS))
    screenshot(page, "offline-fit-match-over-laptop")
    check_in_window(page, "phone", ("#offline-download", *CONTROLS))
    screenshot(page, "offline-fit-match-over-phone")


def test_pass_and_play_offline_fits_a_laptop_and_a_phone(server: str, new_context: ContextFactory,
                                                         page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    page.goto(f"{server}/offline#device")
    page.locator("#passplay-start").click(timeout=LOAD_MS)
    expect(page.locator("#handover-show")).to_be_visible(timeout=LOAD_MS)
    for size in ("laptop", "phone"):
        check_in_window(page, size, ("#handover-show", ".pile-top", *CONTROLS))
        screenshot(page, f"offline-fit-handover-{size}")
    page.set_viewport_size(SIZES["laptop"])
    page.locator("#handover-show").click()
    expect(page.locator(PLAYABLE).first).to_be_visible(timeout=30_000)
    for size in ("laptop", "phone"):
        check_in_window(page, size, (HAND, ".pile-top", *CONTROLS))
        assert hand_width(page) >= 54, f"{size}: the cards are too small to read"
        screenshot(page, f"offline-fit-passplay-{size}")
    assert axe_findings(page) == []

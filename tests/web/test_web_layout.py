"""The table fits the window without scrolling at every common size and table size: every card
of the hand and the centre's top card lie inside the window on this player's turn. Screenshots
of the lobby, the table, a kseri and the score at each size go to screenshots/; axe-core finds
nothing serious on the lobby, the table and the score panel."""

from __future__ import annotations

import re

import httpx
import pytest
from browser_helpers import (
    SIZES,
    ContextFactory,
    PageErrors,
    axe_findings,
    open_lobby,
    screenshot,
    seat_browser,
    settle,
)
from playwright.sync_api import Page, expect

PRESETS = {2: "greek", 3: "three-player", 4: "partnership", 5: "faro"}

INSIDE = """() => {
  const boxes = [...document.querySelectorAll('.hand .card-button'), document.querySelector('.pile-top')]
    .map(n => n.getBoundingClientRect());
  const board = document.querySelector('.scoreboard').getBoundingClientRect();
  const totals = [...document.querySelectorAll('.scoreboard .side-total')].map(n => n.getBoundingClientRect())
    .map(r => [r.left, r.top, r.right, r.bottom]);
  return { boxes: boxes.map(r => [r.left, r.top, r.right, r.bottom]), totals,
           board: [board.left, board.top, board.right, board.bottom],
           scrollWidth: document.documentElement.scrollWidth, cardWidth: boxes[0].width };
}"""


def bot_table(server: str, players: int, rules: str | None = None) -> dict[str, object]:
    seats = [{"kind": "human", "name": "Eleni"}] + [{"kind": "bot", "level": "greedy"}] * (players - 1)
    answer = httpx.post(f"{server}/api/tables", json={"rules": rules or PRESETS[players], "seats": seats,
                                                      "casual": True, "public": False})
    assert answer.status_code == 201, answer.text
    created: dict[str, object] = answer.json()
    return created


def check_fits(page: Page, size: str) -> None:
    window = SIZES[size]
    page.set_viewport_size(window)
    page.wait_for_selector(".table-screen.my-turn")
    page.wait_for_timeout(100)
    settle(page)
    found = page.evaluate(INSIDE)
    for left, top, right, bottom in found["boxes"]:
        inside = left >= 0 and top >= 0 and right <= window["width"] and bottom <= window["height"]
        assert inside, (size, found)
    assert found["scrollWidth"] <= window["width"], (size, "sideways scrolling", found)
    # every side's score shows whole within the scoreboard, however long the names
    board_left, board_top, board_right, board_bottom = found["board"]
    for left, top, right, bottom in found["totals"]:
        shown = (right > left and board_left <= left and right <= board_right
                 and board_top <= top < bottom <= board_bottom)
        assert shown, (size, "a score out of sight", found)
    assert found["cardWidth"] >= 54, (size, "cards too small to read", found)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_table_fits_every_window(players: int, server: str, new_context: ContextFactory,
                                     page_errors: PageErrors) -> None:
    created = bot_table(server, players)
    context = new_context(SIZES["laptop"])
    seat_browser(context, created["table"]["id"], created["seat"], created["token"])  # type: ignore[index]
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/t/{created['table']['id']}")  # type: ignore[index]
    for size in SIZES:
        check_fits(page, size)
        screenshot(page, f"table-{players}p-{size}", full_page=False)
    # the scores, the opponents, the stock and the controls are on the first screen too
    page.set_viewport_size(SIZES["laptop"])
    for selector in (".scoreboard", ".opponents", ".stock", "#rules-button", "#sound-button",
                     "#leave-button"):
        expect(page.locator(selector)).to_be_in_viewport()
    if players == 2:
        assert axe_findings(page) == []


def test_lobby_at_every_size_and_accessible(server: str, new_context: ContextFactory,
                                            page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    open_lobby(page, server)
    assert axe_findings(page) == []
    for size, window in SIZES.items():
        page.set_viewport_size(window)
        expect(page.locator("#quick-play")).to_be_in_viewport()
        screenshot(page, f"lobby-{size}", full_page=False)


def test_a_match_with_its_kseri_moment_and_score_screen(server: str, new_context: ContextFactory,
                                                        page_errors: PageErrors) -> None:
    created = bot_table(server, 2, "greek,target=40,target_rule=higher-wins")
    context = new_context(SIZES["laptop"])
    seat_browser(context, created["table"]["id"], created["seat"], created["token"])  # type: ignore[index]
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/t/{created['table']['id']}")  # type: ignore[index]
    page.evaluate("""() => new MutationObserver(() => {
        if (document.querySelector('.celebration[data-kind$="kseri"]')) window.kseriShot = true;
      }).observe(document.body, { childList: true })""")
    kseri_shot = False
    while not page.locator(".match-end").count():
        if page.locator("#next-round").count():
            page.click("#next-round")
        elif page.locator(".table-screen.my-turn").count():
            # take a kseri when one is on offer (a lone card and its twin in the hand)
            top = page.locator(".pile-top").get_attribute("data-card") or ""
            lone = page.locator("#pile-size").inner_text() == "1"
            cards = page.locator(".hand .card-button").evaluate_all("ns => ns.map(n => n.dataset.card)")
            twin = next((c for c in cards if lone and c[0] == top[:1]), cards[0])
            seq = page.locator(".table-screen").get_attribute("data-seq")
            page.locator(f'.hand .card-button[data-card="{twin}"]').first.click()
            page.wait_for_function("s => document.querySelector('.table-screen').dataset.seq !== s", arg=seq)
        celebration = page.locator('.celebration[data-kind$="kseri"]')
        if not kseri_shot and page.evaluate("Boolean(window.kseriShot)") and celebration.count():
            # reduced motion (these tests' default): the same words, faded in and out
            expect(celebration).to_have_class(re.compile(r"\bfade\b"))
            expect(celebration.locator(".celebration-text")).to_contain_text("kseri", ignore_case=True)
            screenshot(page, "kseri-laptop", full_page=False)
            kseri_shot = True
        page.wait_for_timeout(30)
    effects = page.evaluate("window.kseriEffects.motions.map(m => m.name)")
    assert any(name.startswith("celebrate-") for name in effects), effects
    expect(page.locator("#panel-title")).to_be_visible()
    expect(page.locator(".celebration")).to_have_count(0, timeout=5000)
    assert axe_findings(page) == []
    for size, window in SIZES.items():
        page.set_viewport_size(window)
        expect(page.locator("#rematch")).to_be_attached()
        screenshot(page, f"score-{size}", full_page=False)

"""Keyboard-only play: the lobby form, number keys, arrows and Enter, all announced."""

from __future__ import annotations

import json
import re

from browser_helpers import DESKTOP, ContextFactory, PageErrors, open_lobby, seq_of, wait_past
from playwright.sync_api import Page, WebSocketRoute, expect


def _count_plays(page: Page) -> list[str]:
    """Let the page's WebSocket through, noting the cards of the plays it sends."""
    plays: list[str] = []

    def through(socket: WebSocketRoute) -> None:
        upstream = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "play":
                plays.append(data["card"])
            upstream.send(message)

        socket.on_message(from_page)

    page.route_web_socket(re.compile(r"/ws/tables/"), through)
    return plays


def test_keyboard_only_play(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP).new_page())
    plays = _count_plays(page)
    open_lobby(page, server)
    page.locator("#player-name").focus()
    page.keyboard.type("Keys")
    # Tab through the radio groups (against, players, level), an arrow picks a level, and
    # Enter in the name field submits the form.
    page.keyboard.press("Tab")
    expect(page.locator("#opponents-bots")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#mode-2")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#level-expert")).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#level-learned")).to_be_checked()
    page.keyboard.press("ArrowLeft")  # the levels run weakest first: the ladder's top rung
    expect(page.locator("#level-expert-62")).to_be_checked()
    expect(page.locator("#level-expert-62")).to_be_focused()
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
    expect(page.locator("#player-name")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    page.wait_for_selector(".table-screen.my-turn")

    # A number key plays that card of the hand.
    first = page.locator(".hand .card-button .card-name").first.text_content()
    seq = seq_of(page)
    page.keyboard.press("1")
    expect(page.locator("#announcer")).to_contain_text(f"You played {first}")
    wait_past(page, seq)

    # Arrows choose, Enter plays; the focus stays in the hand after the play.
    page.wait_for_selector(".table-screen.my-turn")
    page.locator(".hand .card-button").first.focus()
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("document.activeElement.querySelector('.card-name').textContent")
    second = page.locator(".hand .card-button .card-name").nth(1).text_content()
    assert focused == second
    page.keyboard.press("Enter")
    expect(page.locator("#announcer")).to_contain_text(f"You played {second}")
    page.wait_for_selector(".table-screen.my-turn")
    assert page.evaluate("document.activeElement.classList.contains('card-button')")
    expect(page.locator(".hand .card-button")).to_have_count(4)

    # A key pressed twice before the server answers plays one card, and nothing is refused.
    page.wait_for_selector(".table-screen.my-turn")
    seq = seq_of(page)
    sent = len(plays)
    page.evaluate("""() => { for (let i = 0; i < 2; i++) {
        document.body.dispatchEvent(new KeyboardEvent('keydown', { key: '1', bubbles: true })); } }""")
    wait_past(page, seq)
    page.wait_for_selector(".table-screen.my-turn")
    assert len(plays) == sent + 1, plays
    expect(page.locator("#notice")).to_be_empty()

    # Tab goes through every control of the page from the top, each with a name.
    page.locator("#language-select").focus()
    reached = set()
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement === document.body"):
            break
        focused = page.locator("*:focus")
        expect(focused).to_have_accessible_name(re.compile(r"\w"))
        reached.add(focused.get_attribute("id") or "")
    assert {"hint-button", "memory-button", "hand-0"} <= reached, reached

"""The page survives a reload and a lost connection in the middle of a round."""

from __future__ import annotations

import json
import re

from browser_helpers import DESKTOP, ContextFactory, PageErrors, hand_cards, play_one, start_bot_game
from playwright.sync_api import Page, WebSocketRoute, expect


def seconds_left(page: Page) -> int:
    """The seconds the page's turn clock shows."""
    return int(page.get_by_role("timer").get_attribute("data-left") or "")


def test_reload_in_the_middle_of_a_round(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP).new_page())
    start_bot_game(page, server, target=None, clock=300)
    for _ in range(3):
        page.wait_for_selector(".table-screen.my-turn")
        play_one(page)
    page.wait_for_selector(".table-screen.my-turn")
    hand = hand_cards(page)
    assert len(hand) == 3
    centre = page.locator("#centre-pile").get_attribute("aria-label")

    # The table has a turn clock: seconds left for the play due.
    expect(page.get_by_role("timer")).to_have_accessible_name(re.compile(r"^You: \d+ seconds left to play$"))
    # whose clock it is, in words, and a stopwatch drawn (no ⏱ glyph, a box in Debian's fonts)
    expect(page.get_by_role("timer")).to_have_text(re.compile(r"^You \d+s$"))
    expect(page.get_by_role("timer").locator("svg.clock-icon")).to_have_count(1)
    # let the clock run down a little, then reload: it goes on from the server's deadline
    page.wait_for_function(
        "() => parseInt(document.querySelector('#clock')?.dataset.left ?? '300') <= 297")
    before = seconds_left(page)
    page.reload()
    expect(page.locator(".hand .card-button")).to_have_count(3)
    expect(page.get_by_role("timer")).to_have_text(re.compile(r"^You \d+s$"))
    after = seconds_left(page)
    assert after <= before < 300, f"the clock restarted from full after a reload: {before}s, then {after}s"
    assert hand_cards(page) == hand, "the same seat, the same hand"
    expect(page.locator("#centre-pile")).to_have_attribute("aria-label", centre or "")
    expect(page.locator(".join-panel")).to_have_count(0)
    page.wait_for_selector(".table-screen.my-turn")
    play_one(page)
    expect(page.locator(".hand .card-button")).to_have_count(2)


def test_lost_connection_comes_back_with_since(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP).new_page())
    sockets: list[WebSocketRoute] = []
    hellos: list[dict[str, object]] = []
    black_hole: list[WebSocketRoute] = []

    def through(socket: WebSocketRoute) -> None:
        upstream = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "hello":
                hellos.append(data)
            if socket not in black_hole:
                upstream.send(message)

        socket.on_message(from_page)
        sockets.append(socket)

    page.route_web_socket(re.compile(r"/ws/tables/"), through)
    start_bot_game(page, server, target=None)
    page.wait_for_selector(".table-screen.my-turn")
    play_one(page)
    page.wait_for_selector(".table-screen.my-turn")
    seq = int(page.locator(".table-screen").get_attribute("data-seq") or 0)
    hand = hand_cards(page)

    sockets[-1].close(code=4000, reason="test: the network went away")
    for _ in range(200):
        if len(hellos) >= 2:
            break
        page.wait_for_timeout(50)
    assert len(sockets) >= 2 and len(hellos) >= 2, "the page did not open a new connection"
    expect(page.locator("#connection")).to_have_class("connection online")
    assert hellos[0]["since"] is None
    assert hellos[-1]["since"] == seq, hellos[-1]
    assert hellos[-1]["token"] == hellos[0]["token"]
    assert hand_cards(page) == hand
    play_one(page)
    expect(page.locator(".hand .card-button")).to_have_count(len(hand) - 1)

    # A phone wakes up with a socket that looks open but is dead (nothing gets through): the
    # page pings on waking, hears nothing, and connects again.
    page.wait_for_selector(".table-screen.my-turn")
    black_hole.append(sockets[-1])
    count = len(hellos)
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    for _ in range(200):
        if len(hellos) > count:
            break
        page.wait_for_timeout(50)
    assert len(hellos) > count, "the page did not notice the dead connection"
    play_one(page)
    expect(page.locator(".hand .card-button")).to_have_count(len(hand) - 2)


def test_a_table_that_does_not_exist(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    missing = "This table does not exist (or has been closed)."
    page = page_errors.watch(new_context(DESKTOP).new_page())
    # A seat remembered for a table the server no longer has (say, a fresh database).
    page.goto(f"{server}/")
    page.evaluate("""() => localStorage.setItem('kseri.seats',
        JSON.stringify({ gone: { seat: 0, token: 'old', since: Date.now() } }))""")
    page.goto(f"{server}/t/gone")
    expect(page.get_by_role("heading", name=missing)).to_be_visible()
    assert page.evaluate("JSON.parse(localStorage.getItem('kseri.seats'))") == {}
    page.goto(f"{server}/t/never-was")
    expect(page.get_by_role("heading", name=missing)).to_be_visible()

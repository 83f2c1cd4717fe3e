"""Plays fly to the pile, unless the person asked for reduced motion; a table left while a
play is in flight draws nothing over the next page."""

from __future__ import annotations

import pytest
from browser_helpers import DESKTOP, ContextFactory, PageErrors, play_one, start_bot_game
from playwright.sync_api import expect

COUNT_FLIGHTS = """() => {
  window.flights = 0;
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (node.classList && node.classList.contains('flying-card')) window.flights++;
      }
    }
  }).observe(document.body, { childList: true });
}"""


@pytest.mark.parametrize(("motion", "flies"), [("no-preference", True), ("reduce", False)])
def test_played_cards_fly_unless_motion_is_reduced(
        motion: str, flies: bool, server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP, reduced_motion=motion).new_page())
    start_bot_game(page, server, target=None)
    page.wait_for_selector(".table-screen.my-turn")
    page.evaluate(COUNT_FLIGHTS)
    play_one(page)
    page.wait_for_selector(".table-screen.my-turn")
    flights = page.evaluate("window.flights")
    # At least the last play flies (an earlier one is drawn at once when the next is already waiting).
    assert (flights >= 1) if flies else (flights == 0), flights


def test_a_table_left_while_a_play_flies_draws_nothing_over_the_next_page(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    context = new_context(DESKTOP, reduced_motion="no-preference")
    page = page_errors.watch(context.new_page())
    start_bot_game(page, server, target=None)
    page.wait_for_selector(".table-screen.my-turn")
    animations = context.new_cdp_session(page)
    animations.send("Animation.enable")
    animations.send("Animation.setPlaybackRate", {"playbackRate": 0.01})  # the flight: 30 s
    page.locator(".table-screen.my-turn .hand .card-button").first.click()
    page.wait_for_selector(".flying-card")
    page.go_back()  # to the lobby, while the play is still shown
    expect(page.locator("#create-game")).to_be_visible()
    animations.send("Animation.setPlaybackRate", {"playbackRate": 1})
    expect(page.locator(".flying-card")).to_have_count(0)
    # The flight's end is where the table drew itself again: over the lobby, before the fix.
    expect(page.locator("#create-game")).to_be_visible()
    expect(page.locator(".table-screen")).to_have_count(0)

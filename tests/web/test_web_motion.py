"""Plays fly to the pile, unless the person asked for reduced motion."""

from __future__ import annotations

import pytest
from browser_helpers import DESKTOP, ContextFactory, PageErrors, play_one, start_bot_game

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

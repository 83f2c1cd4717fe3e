"""Issue 22: what the server learns from the games played on it, in the browser. A player's
finished game is analysed in the background and the profile draws the accuracy of each analysed
game over time (with how many games it covers); /puzzles chooses puzzles by rule family (Greek,
Pisti) and shows Pisti's shown card."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import (
    DESKTOP,
    PHONE,
    ContextFactory,
    PageErrors,
    axe_findings,
    play_until,
    screenshot,
    sign_up_on_the_page,
    start_bot_game,
)
from playwright.sync_api import expect
from serverkit import LAX, Server

from kseri.analysis.puzzles import starting_set


@pytest.fixture
def cutting_server(tmp_path: Path) -> Iterator[str]:
    """A server of its own that analyses and cuts finished games at once (in the background)."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}",
                    {"--bot-delay": "0.05", "--ready-timeout": "10", "--puzzle-cuts": "600",
                     "--limits": LAX + ",signups_per_hour=20"}).start()
    yield server.http
    server.stop()


def test_the_profile_draws_the_accuracy_of_the_games_analysed_in_the_background(
        cutting_server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    url = cutting_server
    page = page_errors.watch(new_context(DESKTOP).new_page())
    sign_up_on_the_page(page, url, "Eleni")
    expect(page.locator("#accuracy-covers")).to_contain_text("No analysed game yet")
    start_bot_game(page, url, target=10)
    play_until(page, ".overlay-panel .match-end")
    page.goto(f"{url}/p/Eleni")  # no replay opened, no analysis asked for
    for _ in range(60):
        page.locator("#accuracy-covers").wait_for()  # the profile drawn, chart or not
        if page.locator("#accuracy-chart circle").count():
            break
        page.wait_for_timeout(2000)
        page.reload()
    expect(page.locator("#accuracy-chart circle")).to_have_count(1)
    expect(page.locator("#accuracy-covers")).to_contain_text("1 analysed game of the 1 played here; mean")
    label = page.locator("#accuracy-chart").get_attribute("aria-label") or ""
    assert label.startswith("Accuracy per analysed game")
    assert axe_findings(page) == []
    page.locator("#accuracy-chart").scroll_into_view_if_needed()
    screenshot(page, "profile-accuracy-laptop", full_page=False)
    phone = page_errors.watch(new_context(PHONE).new_page())
    phone.goto(f"{url}/p/Eleni")
    expect(phone.locator("#accuracy-chart circle")).to_have_count(1)
    # The values stand beside their names, not past the chart's long caption (on a phone that
    # pushed them over the panel's edge).
    names, values = phone.locator(".stats").evaluate("""list => [
        [...list.querySelectorAll('dt')].filter(dt => !dt.nextElementSibling.classList.contains('accuracy'))
            .map(dt => { const text = document.createRange(); text.selectNodeContents(dt);
                         return text.getBoundingClientRect().right; }),
        [...list.querySelectorAll('dd:not(.accuracy)')].map(dd => dd.getBoundingClientRect().left)]""")
    assert max(values) <= max(names) + 32, (names, values)
    phone.locator("#accuracy-chart").scroll_into_view_if_needed()
    screenshot(phone, "profile-accuracy-phone", full_page=False)


def test_puzzles_by_rule_family(server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    shipped = {puzzle.id: puzzle for puzzle in starting_set()}
    for size, name in ((PHONE, "phone"), (DESKTOP, "laptop")):
        page = page_errors.watch(new_context(size).new_page())
        page.goto(f"{server}/puzzles")
        chooser = page.locator("#puzzle-family")
        expect(chooser.locator("option")).to_have_count(3)  # every family, Greek, Pisti
        board = page.locator(".puzzle-board")
        first = str(board.get_attribute("data-puzzle"))
        chooser.select_option("pisti")
        expect(board).not_to_have_attribute("data-puzzle", first)  # the next, of the family chosen
        expect(page.locator("#puzzle-rules")).to_have_text("Pisti (Turkish)")
        puzzle = shipped[str(board.get_attribute("data-puzzle"))]
        assert puzzle.family == "pisti"
        expect(page.locator("#puzzle-shown")).to_be_visible()  # Pisti's shown card
        page.click(f".puzzle-hand .card-button[data-card='{puzzle.answers[0]}']")
        expect(page.locator("#puzzle-result")).to_contain_text("Solved!")
        assert axe_findings(page) == []
        screenshot(page, f"puzzles-pisti-{name}", full_page=False)
        page.click("#puzzle-continue")
        expect(board).not_to_have_attribute("data-puzzle", puzzle.id)
        assert shipped[str(board.get_attribute("data-puzzle"))].family == "pisti"
        page.reload()  # the choice is kept
        expect(page.locator("#puzzle-family")).to_have_value("pisti")
        chooser = page.locator("#puzzle-family")
        chooser.select_option("greek")
        expect(page.locator("#puzzle-rules")).to_have_text("Greek")
        assert shipped[str(page.locator(".puzzle-board").get_attribute("data-puzzle"))].family == "greek"

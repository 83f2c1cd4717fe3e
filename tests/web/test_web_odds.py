"""Issue 22: live win odds at a table. A player in a casual game against the computer turns the
bar on and sees it on its turn; a spectator of that table sees it too (from what spectators see);
at a rated table neither a player nor a spectator is offered it and the server refuses it."""

from __future__ import annotations

import re

from browser_helpers import (
    SIZES,
    ContextFactory,
    PageErrors,
    axe_findings,
    screenshot,
    sign_up_on_the_page,
    start_bot_game,
)
from playwright.sync_api import Page, expect
from test_web_players import players_server  # noqa: F401  (the fixture)
from test_web_rated_end import pair

ODDS = re.compile(r"to play: \d+% to win the round \(\d+–\d+%\), \d+% the match\.")


def turn_on(page: Page) -> None:
    toggle = page.locator("#live-odds-toggle")
    expect(toggle).to_have_text("Show win odds")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    # the first search starts the worker processes: generous
    expect(page.locator("#odds-text")).to_have_text(ODDS, timeout=90000)
    expect(page.locator("#odds-bar .odds-meter")).to_be_visible()


def test_the_odds_bar_in_a_casual_game_against_the_computer_and_for_a_spectator(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    player = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    table = start_bot_game(player, server, target=151)
    expect(player.locator(".table-screen.my-turn")).to_be_visible(timeout=30000)
    turn_on(player)
    expect(player.locator("#odds-text")).to_contain_text("You to play")
    assert axe_findings(player) == []
    screenshot(player, "live-odds-laptop", full_page=False)
    # kept on for the next turn, asked again for the new state
    first = player.locator("#odds-text").get_attribute("data-seq")
    player.locator(".table-screen.my-turn .hand .card-button").first.click()
    player.wait_for_function("seq => { const t = document.querySelector('#odds-text');"
                             " return t && t.dataset.seq !== seq; }", arg=first, timeout=90000)
    expect(player.locator("#odds-text")).to_have_text(ODDS)

    watcher = page_errors.watch(new_context(SIZES["phone"]).new_page())
    watcher.goto(f"{server}/t/{table}")
    expect(watcher.locator(".spectating")).to_be_visible()
    turn_on(watcher)
    expect(watcher.locator("#odds-bar")).to_contain_text("no hidden card")
    watcher.locator("#odds-bar").scroll_into_view_if_needed()
    assert axe_findings(watcher) == []
    screenshot(watcher, "live-odds-spectator-phone", full_page=False)


def test_no_odds_bar_in_a_rated_game(players_server: str, new_context: ContextFactory,  # noqa: F811
                                     page_errors: PageErrors) -> None:
    url = players_server
    eleni = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    nikos = page_errors.watch(new_context(SIZES["phone"]).new_page())
    sign_up_on_the_page(eleni, url, "Eleni")
    sign_up_on_the_page(nikos, url, "Nikos")
    pair((eleni, nikos), url)
    table = eleni.url.rsplit("/", 1)[1]
    watcher = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    watcher.goto(f"{url}/t/{table}")
    for page in (eleni, nikos, watcher):
        expect(page.locator(".scoreboard .seat-rating")).to_have_count(2)  # the table is known rated
        expect(page.locator("#live-odds-toggle")).to_have_count(0)
    refused = watcher.evaluate("id => fetch(`/api/tables/${id}/odds`)"
                               ".then(async r => [r.status, (await r.json()).error.code])", table)
    assert refused == [403, "rated"]
    screenshot(watcher, "live-odds-rated-spectator-laptop", full_page=False)

"""Issue 19, newcomers 1 and 8: a rated game shows each player's rating beside the name while it
is played, and its end panel the rating change and the new rating."""

from __future__ import annotations

import datetime
import re
import time

from browser_helpers import (
    SIZES,
    ContextFactory,
    PageErrors,
    my_turn,
    play_one,
    screenshot,
    sign_up_on_the_page,
)
from playwright.sync_api import Page, expect
from test_web_players import players_server  # noqa: F401  (the fixture)


def pair(pages: tuple[Page, Page], url: str) -> None:
    """Both ask for a quick rated Greek game and land at the same table."""
    for page in pages:
        page.goto(f"{url}/")
        page.select_option("#quick-family", "greek")
        page.select_option("#quick-clock", "60")
    pages[0].click("#quick-find")
    expect(pages[1].locator("#seek-list")).to_contain_text("Eleni (1500)")
    pages[1].click("#quick-find")
    for page in pages:
        page.wait_for_url(re.compile(r"/t/[^/#]+$"), timeout=10000)
        expect(page.locator(".hand .card-button")).to_have_count(6)


def each_plays_once(pages: tuple[Page, Page]) -> None:
    played = [False, False]
    deadline = time.monotonic() + 60
    while not all(played):
        assert time.monotonic() < deadline, "the two did not each play a card"
        for index, page in enumerate(pages):
            if not played[index] and my_turn(page):
                played[index] = play_one(page)
        pages[0].wait_for_timeout(50)


def test_a_rated_game_shows_ratings_beside_the_names_and_their_change_at_the_end(
        players_server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:  # noqa: F811
    url = players_server
    eleni = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    nikos = page_errors.watch(new_context(SIZES["phone"]).new_page())
    sign_up_on_the_page(eleni, url, "Eleni")
    sign_up_on_the_page(nikos, url, "Nikos")
    pair((eleni, nikos), url)

    for page in (eleni, nikos):  # both ratings beside the names: the scoreboard and the opponent
        expect(page.locator(".scoreboard .seat-rating")).to_have_text(["1500?", "1500?"])
        expect(page.locator(".opponents .seat-rating")).to_have_text("1500?")
    screenshot(eleni, "rated-names-laptop", full_page=False)
    screenshot(nikos, "rated-names-phone", full_page=False)

    each_plays_once((eleni, nikos))
    nikos.click("#resign-button")
    nikos.click("#resign-confirm")
    for page in (eleni, nikos):
        expect(page.locator(".overlay-panel .match-end")).to_be_visible()
    mine = eleni.locator("#rating-change li.mine")
    expect(mine).to_have_text("Your rating 1500? → 1617? (+117)")
    expect(eleni.locator("#rating-change li:not(.mine)")).to_have_text("Nikos 1500? → 1383? (−117)")
    expect(nikos.locator("#rating-change li.mine")).to_have_text("Your rating 1500? → 1383? (−117)")
    expect(nikos.locator("#rating-change .rating-delta.down")).to_be_visible()
    expect(mine).to_be_in_viewport()
    screenshot(eleni, "rated-end-laptop", full_page=False)
    screenshot(nikos, "rated-end-phone", full_page=False)

    # newcomer 7: the profile's rating chart has its axes: the ratings, and the games' dates
    eleni.goto(f"{url}/p/Eleni")
    chart = eleni.locator('.rating-list li[data-family="greek"] .rating-chart')
    expect(chart.locator(".axis")).to_have_count(2)
    expect(chart.locator(".tick:not(.date)")).to_have_text(["1617", "1500"])
    day = str(datetime.datetime.fromtimestamp(time.time()).day)
    expect(chart.locator(".tick.date")).to_have_count(1)  # one game: its date
    expect(chart.locator(".tick.date")).to_contain_text(day)
    assert day in (chart.get_attribute("aria-label") or "")
    screenshot(eleni, "rated-profile-chart-laptop", full_page=False)

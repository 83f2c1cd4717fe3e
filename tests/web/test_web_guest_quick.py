"""Issue 19, newcomer 8: a guest finds a casual quick game, and another guest accepts it by
clicking it in the lobby's list of players waiting."""

from __future__ import annotations

import re

from browser_helpers import SIZES, ContextFactory, PageErrors, screenshot
from playwright.sync_api import Page, expect


def guest(new_context: ContextFactory, page_errors: PageErrors, name: str, size: str) -> Page:
    context = new_context(SIZES[size])
    context.add_init_script(f"localStorage.setItem('kseri.name', {name!r})")
    return page_errors.watch(context.new_page())


def test_a_guest_seeks_a_casual_game_and_another_accepts_it_from_the_list(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    ana = guest(new_context, page_errors, "Ana", "laptop")
    bo = guest(new_context, page_errors, "Bo", "phone")
    for page in (ana, bo):
        page.goto(f"{server}/")
        expect(page.locator("#quick-find")).to_be_visible()  # no account needed
        expect(page.locator("#quick-game-title")).to_have_text("Quick game")
        expect(page.locator("#quick-rated")).to_have_count(0)  # a guest's game is casual
        expect(page.locator("#quick-sign-in")).to_be_visible()
    ana.select_option("#quick-family", "greek")
    ana.select_option("#quick-clock", "30")
    ana.click("#quick-find")
    expect(ana.locator("#quick-status")).to_contain_text("Looking for an opponent")
    listed = bo.locator("#seek-list li", has_text="Ana (casual): Greek, 30 s")
    expect(listed).to_be_visible()
    own = ana.locator("#seek-list li", has_text="Ana (casual)")
    expect(own.locator("button")).to_have_count(0)  # not one's own
    screenshot(bo, "guest-seek-list-phone")
    listed.get_by_role("button", name="Play Ana").click()
    for page in (ana, bo):
        page.wait_for_url(re.compile(r"/t/[^/#]+$"), timeout=15000)
        expect(page.locator(".hand .card-button")).to_have_count(6)
    assert ana.url == bo.url
    expect(bo.locator(".opponents .opponent-name")).to_contain_text("Ana")
    expect(ana.locator(".seat-rating")).to_have_count(0)  # casual: no ratings
    screenshot(ana, "guest-casual-table-laptop", full_page=False)


def test_the_quick_games_form_keeps_the_focus_while_the_waiting_list_refreshes(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    """The list of players waiting refreshes every two seconds; the choices above it stay the
    same elements, so a keyboard's focus (or an open list of clocks) is not taken away."""
    ana = guest(new_context, page_errors, "Ana", "laptop")
    ana.goto(f"{server}/")
    ana.focus("#quick-clock")
    ana.eval_on_selector("#quick-clock", "select => { select.dataset.marked = 'yes'; }")
    for _ in range(2):  # the second answer comes after the first one's list was drawn
        with ana.expect_response(re.compile(r"/api/seeks$")):
            pass
    expect(ana.locator("#quick-clock")).to_have_attribute("data-marked", "yes")
    expect(ana.locator("#quick-clock")).to_be_focused()

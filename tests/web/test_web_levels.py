"""The lobby offers the bot levels the server lists, with friendly names for the ones it knows."""

from __future__ import annotations

import httpx
from browser_helpers import DESKTOP, ContextFactory, PageErrors, open_lobby
from playwright.sync_api import Page, Route, expect

FRIENDLY = {"random": "Beginner", "greedy": "Casual", "learned": "Learner", "expert": "Expert",
            "master": "Master", "expert-5": "Newcomer", "expert-18": "Improver", "expert-35": "Club player",
            "expert-62": "Strong player"}


def offered(page: Page) -> list[str]:
    """The levels of the lobby's level choice, in order."""
    values: list[str] = page.locator("input[name=level]").evaluate_all("nodes => nodes.map(n => n.value)")
    return values


def test_the_level_choice_follows_the_server(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    levels = httpx.get(f"{server}/api/rules").json()["levels"]
    page = page_errors.watch(new_context(DESKTOP).new_page())
    open_lobby(page, server)
    assert offered(page) == levels
    for level in levels:  # a level without a translation (learned) shows its own name
        label = page.locator(f"label:has(#level-{level}) .choice-label")
        expect(label).to_have_text(FRIENDLY.get(level, level))
    page.check("#opponents-friends")
    choices = page.locator("#seat-1 option").evaluate_all("nodes => nodes.map(n => n.value)")
    assert choices == ["friend", *levels]


def test_a_level_the_page_does_not_know_shows_its_own_name(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP).new_page())

    def one_more_level(route: Route) -> None:
        answer = route.fetch()
        rules = answer.json()
        rules["levels"].append("grandmaster")
        route.fulfill(response=answer, json=rules)

    page.route("**/api/rules", one_more_level)
    open_lobby(page, server)
    assert offered(page)[-1] == "grandmaster"
    expect(page.locator("label:has(#level-grandmaster) .choice-label")).to_have_text("grandmaster")
    expect(page.locator("label:has(#level-master) .choice-label")).to_have_text("Master")
    page.check("#opponents-friends")
    expect(page.locator("#seat-1 option[value=grandmaster]")).to_have_text("Computer (grandmaster)")

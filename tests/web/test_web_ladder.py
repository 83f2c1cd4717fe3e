"""The lobby shows each bot level with its rating on the players' scale in the chosen family."""

from __future__ import annotations

import httpx
from browser_helpers import SIZES, ContextFactory, PageErrors, open_lobby, screenshot, settle, start_bot_game
from playwright.sync_api import Page, expect


def about(rating: int) -> str:
    """The lobby's words for a rating: rounded to 50."""
    return f"about {round(rating / 50) * 50}"


def expect_ratings(page: Page, ratings: dict[str, int], levels: list[str]) -> None:
    for level in levels:
        badge = page.locator(f"label:has(#level-{level}) .choice-rating")
        if level in ratings:
            expect(badge).to_have_text(about(ratings[level]), timeout=15_000)
        else:
            expect(badge).to_have_count(0)


def test_the_lobby_shows_each_levels_rating_in_the_chosen_family(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    families = httpx.get(f"{server}/api/ratings/bots").json()["families"]
    levels = httpx.get(f"{server}/api/rules").json()["levels"]
    for size in ("laptop", "phone"):
        page = page_errors.watch(new_context(SIZES[size]).new_page())
        open_lobby(page, server)
        page.check("#opponents-bots")
        expect_ratings(page, families["greek"], levels)
        expect(page.locator("label:has(#level-expert-35) .choice-label")).to_have_text("Club player")
        expect(page.locator(".quick-start")).to_contain_text(f"Expert · {about(families['greek']['expert'])}")
        page.check("#level-expert-35")
        page.locator("#level-expert-35").scroll_into_view_if_needed()
        screenshot(page, f"lobby-ladder-{size}", full_page=False)
        page.check("#preset-pisti")
        expect_ratings(page, families["pisti"], levels)
        page.check("#preset-children")  # a family whose bots are not measured: no ratings
        expect(page.locator(".choice-rating")).to_have_count(0)
        page.check("#opponents-friends")
        page.check("#preset-greek")
        option = page.locator("#seat-1 option[value=expert-62]")
        expect(option).to_have_text(f"Computer (Strong player · {about(families['greek']['expert-62'])})")


def test_the_offline_lobby_shows_the_rungs_with_their_ratings(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    families = httpx.get(f"{server}/api/ratings/bots").json()["families"]
    page = page_errors.watch(new_context(SIZES["phone"]).new_page())
    page.goto(f"{server}/offline")
    level = page.locator("#offline-level")
    expect(level).to_be_visible(timeout=120_000)
    options: list[str] = level.locator("option").evaluate_all("nodes => nodes.map(n => n.value)")
    assert options == ["random", "expert-5", "expert-18", "expert-35", "greedy", "expert-62", "expert"]
    club = level.locator("option[value=expert-35]")
    expect(club).to_have_text(f"Club player · {about(families['greek']['expert-35'])}")
    page.select_option("#offline-preset", "pisti")
    expect(club).to_have_text(f"Club player · {about(families['pisti']['expert-35'])}")
    page.select_option("#offline-preset", "children")
    expect(club).to_have_text("Club player")
    page.select_option("#offline-preset", "greek")
    level.scroll_into_view_if_needed()
    screenshot(page, "offline-ladder-phone", full_page=False)


def test_a_bots_seat_at_the_table_shows_its_levels_rating(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    families = httpx.get(f"{server}/api/ratings/bots").json()["families"]
    for size in ("laptop", "phone"):
        page = page_errors.watch(new_context(SIZES[size]).new_page())
        start_bot_game(page, server, level="expert-35")
        tag = page.locator(".opponents .bot-rating")
        expect(tag).to_have_text(about(families["greek"]["expert-35"]), timeout=15_000)
        expect(page.locator(".opponents .opponent-name .name-full")).to_have_text("Computer (Club player)")
        expect(page.locator(".scoreboard .bot-rating")).to_have_count(0)  # the box says it once
        settle(page)
        screenshot(page, f"table-ladder-{size}", full_page=False)

"""Two people sign up, are paired by a quick game, play a rated match, and see their ratings and
the game on their profiles, the leaderboard, and the master's analysis in the replay."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import (
    DESKTOP,
    ContextFactory,
    PageErrors,
    my_turn,
    play_one,
    screenshot,
    sign_up_on_the_page,
)
from playwright.sync_api import Page, expect
from serverkit import LAX, Server


@pytest.fixture
def players_server(tmp_path: Path) -> Iterator[str]:
    """A server of its own (fresh accounts and ratings), bots and deals fast."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}",
                    {"--bot-delay": "0.05", "--ready-timeout": "10",
                     "--limits": LAX + ",signups_per_hour=20"}).start()
    yield server.http
    server.stop()


def play_the_match(pages: tuple[Page, Page], limit_s: float = 400) -> None:
    """Both play their first card on their turn and go on after each round until the end."""
    deadline = time.monotonic() + limit_s
    while not all(page.locator(".match-end").count() for page in pages):
        assert time.monotonic() < deadline, "the match did not end"
        moved = False
        for page in pages:
            if page.locator("#next-round").count():
                page.click("#next-round")
                moved = True
            elif my_turn(page):
                moved = play_one(page) or moved
        if not moved:
            pages[0].wait_for_timeout(50)


@pytest.mark.slow
@pytest.mark.timeout(600)  # a whole rated match to 151, each capture held for the eye: 277 s in a busy run
def test_sign_up_pair_play_rated_and_see_ratings_profiles_and_analysis(
        players_server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    url = players_server
    eleni = page_errors.watch(new_context(DESKTOP).new_page())
    nikos = page_errors.watch(new_context(DESKTOP).new_page())
    sign_up_on_the_page(eleni, url, "Eleni")
    sign_up_on_the_page(nikos, url, "Nikos")

    for page in (eleni, nikos):
        page.goto(f"{url}/")
        expect(page.locator("#quick-find")).to_be_visible()
        page.select_option("#quick-family", "greek")
        page.select_option("#quick-clock", "60")
    eleni.click("#quick-find")
    expect(eleni.locator("#quick-status")).to_contain_text("Looking for an opponent")
    expect(nikos.locator("#seek-list")).to_contain_text("Eleni (1500): Greek, 60 s")  # live in the lobby
    screenshot(nikos, "players-lobby-seek")
    nikos.click("#quick-find")
    for page in (eleni, nikos):
        page.wait_for_url(re.compile(r"/t/[^/#]+$"), timeout=10000)
        expect(page.locator(".hand .card-button")).to_have_count(6)
        expect(page.locator("#hint-button")).to_have_count(0)  # rated: no hints, no memory aid
        expect(page.locator("#memory-button")).to_have_count(0)
    table_id = eleni.url.rsplit("/", 1)[1]
    assert nikos.url.endswith(table_id)

    play_the_match((eleni, nikos))
    screenshot(eleni, "players-rated-match-end")
    won = "You win" in eleni.locator(".match-end h2").inner_text()
    assert won != ("You win" in nikos.locator(".match-end h2").inner_text())
    winner, loser = ("Eleni", "Nikos") if won else ("Nikos", "Eleni")

    eleni.goto(f"{url}/p/{winner}")
    expect(eleni.locator('.rating-list li[data-family="greek"] .rating')).to_have_text("1617?")
    eleni.goto(f"{url}/p/{loser}")
    expect(eleni.locator('.rating-list li[data-family="greek"] .rating')).to_have_text("1383?")
    for page, name in ((eleni, "Eleni"), (nikos, "Nikos")):
        page.goto(f"{url}/p/{name}")
        expect(page.locator("#game-list .game-item")).to_have_count(1)
        expect(page.locator(f'#game-list .game-item[data-table="{table_id}"]')).to_be_visible()
        expect(page.locator(".rating-chart")).to_have_count(1)
    screenshot(eleni, "players-profile")

    eleni.click("#nav-leaderboard")
    expect(eleni.locator("#leaderboard tbody tr")).to_have_count(2)
    expect(eleni.locator("#leaderboard tbody tr").first).to_contain_text(winner)
    expect(eleni.locator("#bot-ratings")).to_contain_text("1000")
    screenshot(eleni, "players-leaderboard")

    eleni.goto(f"{url}/p/Eleni")
    eleni.locator("#game-list .game-item a").click()
    expect(eleni.locator("#replay-caption")).to_be_visible()
    eleni.click("#analyse")
    expect(eleni.locator("#analysis-summary li")).to_have_count(2, timeout=90000)
    expect(eleni.locator("#analysis-summary")).to_contain_text("accuracy")
    eleni.click("#replay-next")
    expect(eleni.locator("#analysis-note")).to_contain_text("played")
    screenshot(eleni, "players-analysis")


def test_a_quick_game_seek_waits_through_a_server_restart(
        tmp_path: Path, new_context: ContextFactory, page_errors: PageErrors) -> None:
    """The server forgets its seeks when it restarts (as a cluster does when the process
    holding them stops): the page keeps looking, seeks again with the same wishes, and is
    paired as before."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}",
                    {"--bot-delay": "0.05", "--limits": LAX + ",signups_per_hour=20"}).start()
    try:
        eleni = page_errors.watch(new_context(DESKTOP).new_page())
        nikos = page_errors.watch(new_context(DESKTOP).new_page())
        sign_up_on_the_page(eleni, server.http, "Eleni")
        sign_up_on_the_page(nikos, server.http, "Nikos")
        for page in (eleni, nikos):
            page.goto(f"{server.http}/")
            page.select_option("#quick-family", "greek")
            page.select_option("#quick-clock", "30")
        eleni.click("#quick-find")
        expect(eleni.locator("#quick-status")).to_contain_text("Looking for an opponent")
        server.stop()
        eleni.wait_for_timeout(1500)  # a poll or two fails while the server is away
        server.start()
        expect(nikos.locator("#seek-list")).to_contain_text("Eleni (1500): Greek, 30 s", timeout=15000)
        expect(eleni.locator("#quick-status")).to_contain_text("Looking for an opponent")
        nikos.click("#quick-find")
        for page in (eleni, nikos):
            page.wait_for_url(re.compile(r"/t/[^/#]+$"), timeout=15000)
            expect(page.locator(".hand .card-button")).to_have_count(6)
        assert eleni.url == nikos.url
    finally:
        server.stop()


def test_a_guest_keeps_the_games_of_this_browser_and_later_games_follow_the_account(
        players_server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    from browser_helpers import play_until, start_bot_game

    url = players_server
    page = page_errors.watch(new_context(DESKTOP).new_page())
    short = {"target": 20, "target_rule": "higher-wins"}  # a round or two: the subject is whose games
    guest_table = start_bot_game(page, url, name="Eleni", level="greedy", **short)
    play_until(page, ".match-end")
    expect(page.locator("#nav-sign-in")).to_be_visible()
    sign_up_on_the_page(page, url, "Eleni")
    expect(page.locator(f'#game-list .game-item[data-table="{guest_table}"]')).to_be_visible()
    # signed in, a casual game against a bot joins the account as it is played
    table = start_bot_game(page, url, name="Eleni", level="random", **short)
    play_until(page, ".match-end")
    page.click("#nav-profile")  # from the table's end, by the top bar's link to one's profile
    expect(page).to_have_url(f"{url}/p/Eleni")
    expect(page.locator("#game-list .game-item")).to_have_count(2)
    expect(page.locator(f'#game-list .game-item[data-table="{table}"]')).to_be_visible()
    expect(page.locator(".rating-list")).to_have_count(0)  # casual games are not rated

"""Puzzles in the browser (/puzzles): reached from the lobby and from a game's end panel, a
puzzle solved and one failed with the rating moving both ways, retrying the failed one, the
streak, and a guest solving unrated on a phone; the review's verdicts on the replay's timeline and
the win-odds bar;
screenshots at laptop and phone sizes."""

from __future__ import annotations

import re

from browser_helpers import SIZES, ContextFactory, PageErrors, play_until, screenshot, sign_up, start_bot_game
from playwright.sync_api import Page, expect

from kseri.analysis.puzzles import Puzzle, starting_set


def shown_puzzle(page: Page) -> Puzzle:
    """The shipped puzzle on the page (its id on the board)."""
    board = page.locator(".puzzle-board")
    expect(board).to_be_visible()
    puzzle_id = board.get_attribute("data-puzzle")
    return {p.id: p for p in starting_set()}[str(puzzle_id)]


def choose(page: Page, *, right: bool) -> Puzzle:
    puzzle = shown_puzzle(page)
    card = puzzle.answers[0] if right else next(c for c in puzzle.view.hand if c not in puzzle.answers)
    page.click(f".puzzle-hand .card-button[data-card='{card}']")
    expect(page.locator("#puzzle-result")).to_contain_text("Solved!" if right else "Not this time")
    return puzzle


def next_one(page: Page, after: Puzzle) -> None:
    page.click("#puzzle-continue")
    expect(page.locator(".puzzle-board")).not_to_have_attribute("data-puzzle", after.id)
    expect(page.locator("#puzzle-result")).to_have_count(0)


def test_an_account_solves_fails_retries_and_keeps_a_streak(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    context = new_context(SIZES["laptop"])
    sign_up(context, server, "Puzzler")
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/")
    page.click("#puzzles-link")
    expect(page).to_have_url(f"{server}/puzzles")
    expect(page.locator("#puzzle-standing")).to_contain_text("Puzzle rating 1500")
    expect(page.locator("#puzzle-prompt")).to_have_text("Your turn: choose the best card")
    screenshot(page, "puzzles-laptop-set")

    solved = choose(page, right=True)
    expect(page.locator("#puzzle-rating-change")).to_contain_text("Rating +")
    expect(page.locator(f".card-button.answer[data-card='{solved.answers[0]}']")).to_be_visible()
    screenshot(page, "puzzles-laptop-solved")
    next_one(page, solved)
    failed = choose(page, right=False)
    expect(page.locator("#puzzle-rating-change")).to_contain_text("Rating -")
    expect(page.locator(".card-button.chosen")).to_have_count(1)
    expect(page.locator("#puzzle-standing")).to_contain_text("1 solved, 1 failed")
    screenshot(page, "puzzles-laptop-failed")

    page.click("#puzzle-mode-retry")
    expect(page.locator(".puzzle-board")).to_have_attribute("data-puzzle", failed.id)
    choose(page, right=True)
    expect(page.locator("#puzzle-rating-change")).to_have_text("A retry does not change your rating.")
    page.click("#puzzle-continue")
    expect(page.locator("#puzzle-error")).to_have_text("No failed puzzle to retry: well done.")

    page.click("#puzzle-mode-streak")
    expect(page.locator("#puzzle-streak-count")).to_have_text("Streak: 0 puzzles solved")
    first = choose(page, right=True)
    expect(page.locator("#puzzle-streak-count")).to_have_text("Streak: 1 puzzle solved")
    next_one(page, first)
    second = choose(page, right=True)
    expect(page.locator("#puzzle-streak-count")).to_have_text("Streak: 2 puzzles solved")
    next_one(page, second)
    third = choose(page, right=False)
    expect(page.locator("#puzzle-streak-count")).to_have_text("The streak ended at 2.")
    screenshot(page, "puzzles-laptop-streak-ended")
    page.click("#puzzle-continue")
    expect(page.locator("#puzzle-streak-count")).to_have_text("Streak: 0 puzzles solved")
    assert shown_puzzle(page).id != third.id


def test_a_guest_solves_unrated_on_a_phone_and_the_daily_puzzle(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["phone"]).new_page())
    page.goto(f"{server}/puzzles")
    expect(page.locator("#puzzle-standing")).to_contain_text("Guests solve unrated.")
    screenshot(page, "puzzles-phone-set")
    choose(page, right=False)
    expect(page.locator("#puzzle-rating-change")).to_have_text("Unrated: sign in to keep a puzzle rating.")
    screenshot(page, "puzzles-phone-failed")
    page.click("#puzzle-mode-daily")
    expect(page.locator(".puzzle-daily")).to_have_text("Today's puzzle, the same for everyone.")
    daily = shown_puzzle(page).id
    page.reload()
    expect(page.locator(".puzzle-board")).to_have_attribute("data-puzzle", daily)
    page.click("#puzzle-mode-retry")
    expect(page.locator("#puzzle-error")).to_have_text("Sign in to retry the puzzles you failed.")


def test_the_reviews_verdicts_on_the_replay_timeline_and_puzzles_after_a_game(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    table = start_bot_game(page, server, name="Eleni", level="greedy", target=10)
    play_until(page, "#watch-replay", limit_s=240)  # the first card every time: mistakes made
    expect(page.locator("#end-puzzles")).to_have_text("Puzzles from my mistakes")
    page.click("#watch-replay")
    expect(page).to_have_url(f"{server}/t/{table}#replay")
    page.click("#analyse")
    expect(page.locator("#verdict-timeline")).to_be_visible(timeout=240_000)
    page.click("#replay-next")
    page.click("#odds-toggle")  # a casual game: the win-odds bar may be shown
    expect(page.locator("#odds-text")).to_contain_text("to play: ", timeout=120_000)
    expect(page.locator("#odds-text")).to_contain_text("% to win the round (")
    fill = page.locator(".odds-fill").get_attribute("style") or ""
    assert re.fullmatch(r"width: \d{1,3}%;?", fill), fill
    screenshot(page, "puzzles-replay-odds-laptop")
    page.click("#replay-first")
    marks = page.locator(".verdict-mark")
    if not marks.count():  # this round had no costly play: the next rounds are looked at
        expect(page.locator("#next-verdict")).to_have_text("No verdict in this round")
        return
    page.click("#next-verdict")
    first = int(str(marks.first.get_attribute("data-step")))
    expect(page.locator("#replay-counter")).to_contain_text(f"{first} /")
    note = page.locator("#analysis-note")
    expect(note).to_have_attribute("data-verdict", re.compile(r"^[a-z_]+$"))
    expect(note).not_to_contain_text("verdict.")  # a sentence, not a key
    expect(page.locator(".verdict-mark.current")).to_have_count(1)
    screenshot(page, "puzzles-replay-verdicts-laptop")
    if marks.count() > 1:
        page.click("#next-verdict")
        second = int(str(marks.nth(1).get_attribute("data-step")))
        expect(page.locator("#replay-counter")).to_contain_text(f"{second} /")
    page.goto(f"{server}/t/{table}")
    page.click("#end-puzzles")
    expect(page).to_have_url(f"{server}/puzzles")
    expect(page.locator(".puzzle-board")).to_be_visible()

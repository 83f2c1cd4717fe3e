"""The memory trainer in the browser (trainer.js): the drill at /trainer reached from the lobby
(the cards pass by and are hidden, one answer right and one wrong, the running score, a
signed-in player's best kept), and in a casual game the counting aid and the quiz ("Quiz me",
and by itself at the batch chosen); a table between people offers neither. Laptop and phone
sizes, axe-clean, screenshots."""

from __future__ import annotations

import re

import httpx
from browser_helpers import (
    SIZES,
    ContextFactory,
    PageErrors,
    axe_findings,
    play_one,
    screenshot,
    seat_browser,
    sign_up,
    spoken,
    start_bot_game,
)
from playwright.sync_api import Page, expect

from kseri.analysis.memory import Moment, Question, drill_view, questions
from kseri.cards import RANK_NAMES
from kseri.rules import Rules


def drill_questions(page: Page) -> tuple[Question, ...]:
    """The questions of the drill position on the page, with their truths (the pure function's)."""
    board = page.locator(".trainer-board")
    preset, moment, seed = str(board.get_attribute("data-position")).split(":")
    return questions(drill_view(Rules.preset(preset), int(seed), Moment(moment)))


def answer_drill(page: Page, asked: tuple[Question, ...], *, jacks_right: bool, rank_out_right: bool) -> None:
    """Fill the drill's form: point cards and kseri ranks right, the two counts as told."""
    by_id = {q.id: q for q in asked}
    jacks, rank_out = by_id["jacks"].truth, by_id["rank_out"].truth
    assert isinstance(jacks, int) and isinstance(rank_out, int)
    page.fill("#drill-jacks", str(jacks if jacks_right else jacks + 2))
    page.fill("#drill-rank_out", str(rank_out if rank_out_right else rank_out + 2))
    clicked: dict[str, int] = {}
    cards, ranks = by_id["point_cards"].truth, by_id["kseri_ranks"].truth
    assert isinstance(cards, tuple) and isinstance(ranks, tuple)
    for card in map(str, cards):  # a two-deck game's copies are toggles of their own
        page.locator(f".quiz-question[data-question='point_cards'] button[data-item='{card}']").nth(
            clicked.get(card, 0)).click()
        clicked[card] = clicked.get(card, 0) + 1
    for rank in ranks:
        page.click(f".quiz-question[data-question='kseri_ranks'] button[data-item='{RANK_NAMES[int(rank)]}']")
    page.click("#drill-check")


def watch_then_ask(page: Page, shot: str | None = None) -> None:
    """The cards played pass by (at least one step when several were played), then are hidden."""
    passing = page.locator("#trainer-passing")
    expect(passing).to_be_visible()
    total = int(re.sub(r".*/ ", "", page.locator(".trainer-count").inner_text()))
    if total > 1:
        expect(passing).not_to_have_attribute("data-step", "0")
    if shot:
        assert axe_findings(page) == []
        screenshot(page, shot)
    # skipped, unless the passing ended by itself while the checks above ran (a busy machine)
    page.evaluate("document.querySelector('#trainer-skip')?.click()")
    expect(page.locator("#trainer-passing")).to_have_count(0)
    expect(page.locator("#drill-form")).to_be_visible()


def test_the_drill_scores_a_right_and_a_wrong_answer_and_keeps_the_best(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    context = new_context(SIZES["laptop"])
    sign_up(context, server, "Memory")
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/")
    page.click("#trainer-link")
    expect(page).to_have_url(f"{server}/trainer")
    page.select_option("#trainer-moment", "early")
    board = page.locator(".trainer-board")
    expect(board).to_have_attribute("data-position", re.compile(r"^greek:early:\d+$"))
    watch_then_ask(page, "trainer-watch-laptop")
    assert axe_findings(page) == []
    screenshot(page, "trainer-questions-laptop")
    asked = drill_questions(page)
    answer_drill(page, asked, jacks_right=True, rank_out_right=False)
    result = page.locator("#trainer-result")
    expect(result).to_contain_text("You scored 3 of 4.")
    expect(result.locator(".quiz-mark[data-question='jacks']")).to_have_class(re.compile(r"\bexact\b"))
    expect(result.locator(".quiz-mark[data-question='rank_out']")).to_have_class(re.compile(r"\bwrong\b"))
    expect(page.locator("#trainer-score")).to_contain_text("Score 3 of 4 · 1 position")
    expect(page.locator("#trainer-best")).to_contain_text("best position 3 of 4 (1 answered)")
    assert axe_findings(page) == []
    screenshot(page, "trainer-marked-laptop")
    page.click("#trainer-next")
    watch_then_ask(page)
    answer_drill(page, drill_questions(page), jacks_right=True, rank_out_right=True)
    expect(page.locator("#trainer-score")).to_contain_text("Score 7 of 8 · 2 positions")
    expect(page.locator("#trainer-best")).to_contain_text("Best run 1 without a fault, best position 4 of 4")
    page.reload()  # the best is the server's
    expect(page.locator("#trainer-best")).to_contain_text("Best run 1 without a fault")


def test_a_guest_drills_on_a_phone(server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["phone"]).new_page())
    page.goto(f"{server}/trainer?moment=last&preset=pisti")
    expect(page.locator(".trainer-board")).to_have_attribute("data-position", re.compile(r"^pisti:last:\d+$"))
    watch_then_ask(page, "trainer-watch-phone")
    answer_drill(page, drill_questions(page), jacks_right=False, rank_out_right=True)
    expect(page.locator("#trainer-result")).to_contain_text("You scored 3 of 4.")
    expect(page.locator("#trainer-score")).to_contain_text("Sign in to keep your best scores.")
    assert axe_findings(page) == []
    screenshot(page, "trainer-marked-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= SIZES["phone"]["width"], width


def out_of(page: Page, rank: str) -> int:
    """The counting aid's count of ``rank`` still out."""
    return int(page.locator(f"#counting-out td[data-rank='{rank}']").inner_text())


def quiz_at_a_casual_table(page: Page, size: str) -> None:
    """The counting aid on, a card played struck out, then the quiz: Jacks right (from the aid's
    count), the rank asked wrong."""
    page.click("#memory-button")
    expect(page.locator("#counting-out")).to_be_visible()
    mine = page.locator(".hand .card-button").first.get_attribute("data-card") or ""
    expect(page.locator(f'#memory td[aria-label="{spoken(mine)}: in your hand"]')).to_have_class("mine")
    page.wait_for_selector(".table-screen.my-turn")
    play_one(page, "click")
    expect(page.locator(f'#memory td[aria-label="{spoken(mine)}: played"]')).to_have_class("gone")
    page.wait_for_selector(".table-screen.my-turn")
    seq = page.locator(".table-screen").get_attribute("data-seq")
    expect(page.locator("#memory")).to_have_attribute("data-seq", str(seq))
    outs = {rank: out_of(page, rank) for rank in RANK_NAMES}
    page.click("#quiz-button")
    dialog = page.locator("#quiz-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#memory")).to_have_count(0)  # the aid is hidden while the quiz asks
    rank = str(dialog.locator(".quiz-question[data-question='rank_out']").get_attribute("data-rank"))
    page.fill("#quiz-jacks", str(outs["J"]))
    page.fill("#quiz-rank_out", str(outs[rank] + 2))
    assert axe_findings(page) == []
    screenshot(page, f"trainer-quiz-{size}", full_page=False)
    page.click("#quiz-check")
    expect(dialog.locator(".quiz-mark[data-question='jacks']")).to_have_class(re.compile(r"\bexact\b"))
    expect(dialog.locator(".quiz-mark[data-question='rank_out']")).to_have_class(re.compile(r"\bwrong\b"))
    expect(dialog.locator("#quiz-total")).to_contain_text(re.compile(r"You scored [\d.]+ of 4\."))
    screenshot(page, f"trainer-quiz-marked-{size}", full_page=False)
    page.click("#quiz-close")
    expect(dialog).to_have_count(0)
    expect(page.locator("#memory")).to_be_visible()


def test_the_counting_aid_and_the_quiz_in_a_casual_game(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    start_bot_game(page, server, name="Mnemon")
    quiz_at_a_casual_table(page, "laptop")
    assert axe_findings(page) == []
    screenshot(page, "trainer-counting-laptop", full_page=False)
    # "Ask me by myself at batch 2": the quiz opens when the second batch is dealt.
    page.wait_for_selector(".table-screen.my-turn")
    page.click("#quiz-button")
    page.select_option("#quiz-batch", "2")
    page.click("#quiz-close")
    for _ in range(12):  # my plays of the first batch; the second is dealt with 24 cards left in the stock
        page.wait_for_selector(".table-screen.my-turn")
        if page.locator(".stock .badge").inner_text() == "24":
            break
        play_one(page, "click")
    expect(page.locator("#quiz-dialog")).to_be_visible()
    expect(page.locator("#quiz-title")).to_contain_text("(batch 2)")


def test_the_quiz_on_a_phone_and_never_at_a_table_between_people(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["phone"]).new_page())
    start_bot_game(page, server, name="Mnemon")
    quiz_at_a_casual_table(page, "phone")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]
    created = httpx.post(f"{server}/api/tables", json={"seats": seats, "casual": False}).json()
    context = new_context(SIZES["phone"])
    seat_browser(context, created["table"]["id"], created["seat"], created["token"])
    other = page_errors.watch(context.new_page())
    other.goto(f"{server}/t/{created['table']['id']}")
    expect(other.locator(".hand")).to_be_visible()
    expect(other.locator("#quiz-button")).to_have_count(0)
    expect(other.locator("#memory-button")).to_have_count(0)

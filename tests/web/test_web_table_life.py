"""The table explains itself and lets a player in and out: the round's plays (kept over a
reload), the rules help, hints in words, the escalation said when it happens, a card played for
a player whose clock ran out, continuing a game from the lobby, resigning, the join page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
from browser_helpers import (
    DESKTOP,
    ContextFactory,
    PageErrors,
    play_one,
    play_until,
    seat_browser,
    start_bot_game,
)
from playwright.sync_api import expect


def test_plays_list_rules_help_hints_continue_and_resign(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP).new_page())
    table_id = start_bot_game(page, server, target=None)
    for _ in range(3):
        page.wait_for_selector(".table-screen.my-turn")
        play_one(page)
    page.wait_for_selector(".table-screen.my-turn")
    plays = page.locator(".play-list .play-item")
    listed = plays.evaluate_all("ns => ns.map(n => n.getAttribute('aria-label'))")
    assert len(listed) >= 5 and sum(label.startswith("You: ") for label in listed) == 3, listed
    expect(page.locator("#round-plays-title .badge")).to_have_text(str(len(listed)))
    page.reload()
    page.wait_for_selector(".table-screen.my-turn")
    assert plays.evaluate_all("ns => ns.map(n => n.getAttribute('aria-label'))") == listed
    # each side's captured pile says its size and its kseris
    expect(page.locator(".me .captured")).to_have_attribute(
        "aria-label", re.compile(r"^Captured: \d+ cards, \d+ kseris$"))

    # the hint's numbers in words
    page.click("#hint-button")
    # the master bot's reckoning takes over 5 s (expect's default) on a busy 2-core machine
    expect(page.locator("#hint-help")).to_contain_text("expected to bring you this round", timeout=60_000)

    # the rules help from the table: the rule set in words and the scoring table
    page.click("#rules-button")
    dialog = page.locator("#rules-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text("Rules: Greek")
    expect(dialog).to_contain_text("the target rises by 100 (to 251)")
    expect(dialog.locator(".scoring-table")).to_contain_text("10♦")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)

    # out to the lobby and back in through "Continue your game"
    page.click("#leave-button")
    expect(page.locator("#continue-title")).to_have_text("Continue your game")
    expect(page.locator(f'.continue-game[data-table="{table_id}"]')).to_be_visible()
    page.click(".how-to summary")
    page.click("#lobby-rules")
    expect(page.locator("#rules-dialog h2")).to_have_text("Rules: Greek")
    page.click("#rules-close")
    page.locator(f'.continue-game[data-table="{table_id}"]').click()
    page.wait_for_url(re.compile(f"/t/{table_id}$"))
    page.wait_for_selector(".table-screen.my-turn")

    # resign, after a confirmation: cancelling changes nothing
    page.click("#resign-button")
    page.click("#resign-cancel")
    expect(page.locator(".match-end")).to_have_count(0)
    page.click("#resign-button")
    expect(page.locator("#resign-dialog")).to_contain_text("The match ends now")
    page.click("#resign-confirm")
    expect(page.locator("#resigned-line")).to_have_text("You resigned.")
    expect(page.locator(".match-end #panel-title")).to_have_text("Computer (Casual) won the match")
    with page.expect_download() as download:
        page.click("#download-record")
    record = json.loads(Path(download.value.path()).read_text())
    assert record["resigned"] == 0 and record["winner"] == 1 and record["complete"]


def test_the_escalation_is_said_when_both_pass_the_target(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP).new_page())
    for _ in range(5):  # a side that scores nothing in the first round ends the match at once: again
        start_bot_game(page, server, target=1)
        play_until(page, "#next-round, #rematch", limit_s=300)
        if page.locator("#next-round").count():
            break
    # with a target of 1 both sides pass it in the first round (Greek escalation: +100)
    expect(page.locator("#escalated")).to_have_text("Both passed 1: the match now goes to 101.")
    expect(page.locator("#announcer")).to_contain_text("Both passed 1: the match now goes to 101.")
    expect(page.locator(".scoreboard .target-line")).to_have_text("Playing to 101")


def test_a_card_played_when_the_clock_ran_out_is_shown_and_said(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    answer = httpx.post(f"{server}/api/tables", json={
        "rules": "greek", "seats": [{"kind": "human", "name": "Eleni"}, {"kind": "bot", "level": "greedy"}],
        "casual": True, "public": False, "clock": 1})
    created = answer.json()
    context = new_context(DESKTOP)
    seat_browser(context, created["table"]["id"], created["seat"], created["token"])
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/t/{created['table']['id']}")
    expect(page.locator("#last-play")).to_contain_text("Your time ran out: the computer played",
                                                        timeout=15000)
    expect(page.locator("#announcer")).to_contain_text("Your time ran out: the computer played")
    expect(page.locator(".play-item.mine .play-auto").first).to_contain_text("time ran out")


def test_the_join_page_names_the_rules_and_the_target_in_words(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    answer = httpx.post(f"{server}/api/tables", json={
        "rules": "pisti", "seats": [{"kind": "human", "name": "Eleni"}, {"kind": "human"}], "public": False})
    table_id = answer.json()["table"]["id"]
    guest = page_errors.watch(new_context(DESKTOP).new_page())
    guest.goto(f"{server}/t/{table_id}")
    intro = guest.locator(".join-panel p").first
    expect(intro).to_have_text("Pisti (Turkish): 2 players, first to 151 points.")


def test_pistis_shown_bottom_card_is_visible_and_labelled(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    answer = httpx.post(f"{server}/api/tables", json={
        "rules": "pisti", "seats": [{"kind": "human", "name": "Eleni"}, {"kind": "bot", "level": "greedy"}],
        "casual": True, "public": False})
    created = answer.json()
    context = new_context(DESKTOP)
    seat_browser(context, created["table"]["id"], created["seat"], created["token"])
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/t/{created['table']['id']}")
    shown = page.locator("#shown-card")
    expect(shown).to_be_in_viewport()
    expect(shown.locator("figcaption")).to_have_text("Bottom card (dealt last)")
    expect(shown.locator(".shown-face")).to_have_attribute(
        "aria-label", re.compile(r"^Bottom of the stock: .+ of .+$"))

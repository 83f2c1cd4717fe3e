"""A whole match against a bot through the page, from the lobby to the winner."""

from __future__ import annotations

import json
import re
from pathlib import Path

from browser_helpers import (
    DESKTOP,
    ContextFactory,
    PageErrors,
    play_one,
    play_until,
    screenshot,
    spoken,
    start_bot_game,
)
from playwright.sync_api import expect

CARD_NAME = re.compile(r"^(2|3|4|5|6|7|8|9|10|Jack|Queen|King|Ace) of (clubs|diamonds|hearts|spades)\b")


def test_whole_match_against_a_bot(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP).new_page())
    page.goto(f"{server}/")
    expect(page.locator("#create-game")).to_be_enabled()
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    for level in ("random", "greedy", "expert", "master"):
        expect(page.locator(f"#level-{level}")).to_be_visible()
    expect(page.locator("#preset-greek")).to_be_checked()
    expect(page.get_by_text("6 cards each, kseri 10")).to_be_visible()
    screenshot(page, "lobby")

    table_id = start_bot_game(page, server, target=30)
    # The table: hand, centre, opponent, stock, score against the target.
    cards = page.locator(".hand .card-button")
    expect(cards).to_have_count(6)
    for label in cards.locator(".card-name").all_text_contents():
        assert CARD_NAME.match(label), label
    expect(page.locator(".opponent")).to_have_count(1)
    expect(page.locator(".opponent .mini-hand")).to_be_visible()
    expect(page.locator("#centre-pile")).to_have_attribute(
        "aria-label", re.compile(r"Centre pile: .+ (on top, \d+ cards|the only card)|The centre is empty"))
    expect(page.locator(".stock")).to_have_attribute("aria-label", re.compile(r"Stock: \d+ cards"))
    expect(page.locator(".scoreboard")).to_contain_text("Playing to 30")
    expect(page.locator("#hint-button")).to_be_visible()

    # A hint (a casual table): the master's value on each card, the best outlined and announced.
    page.wait_for_selector(".table-screen.my-turn")
    page.click("#hint-button")
    expect(page.locator(".hand .hint-value")).to_have_count(cards.count())
    best = page.locator(".hand .card-button.best")
    expect(best).to_have_count(1)
    best_card = best.get_attribute("data-card") or ""
    expect(page.locator("#announcer")).to_contain_text(f"Hint: {spoken(best_card)} is the best play.")
    played = page.locator(".hand .card-button").first.get_attribute("data-card") or ""
    play_one(page, "click")
    expect(page.locator("#announcer")).to_contain_text(f"You played {spoken(played)}")
    expect(page.locator(".last-play")).not_to_be_empty()
    # The memory aid (a casual table): the card just played is struck out.
    page.click("#memory-button")
    expect(page.locator("#memory")).to_be_visible()
    cell = page.locator(f'#memory td[aria-label="{spoken(played)}: played"]')
    expect(cell).to_have_class("gone")
    screenshot(page, "table")

    cut = "olive oil and oregano"
    did_cut = play_until(page, ".match-end", how="click", limit_s=150, cut=cut)
    end = page.locator(".match-end")
    expect(end.locator("#panel-title")).to_have_text(re.compile(r"You win the match|won the match"))
    expect(end.locator(".breakdown").first).to_contain_text("Point cards")
    expect(end.locator(".breakdown").first).to_contain_text("Most cards")
    expect(end.locator(".breakdown").first).to_contain_text("Kseris")
    # Every round's deal is checked in the browser against the commitment seen before it.
    # Folded to one line, with the details on demand.
    expect(end.locator("#fairness-title")).to_have_text("Fair deal ✓")
    checks = end.locator(".fair-list li")
    expect(checks.first).to_be_hidden()
    end.locator("#fairness-title").click()
    expect(checks.first).to_be_visible()
    statuses = checks.evaluate_all("nodes => nodes.map(n => n.dataset.status)")
    assert statuses and set(statuses) == {"ok"}, statuses
    cuts = end.locator(".fair-cut").all_text_contents()
    # Our words, when this seat cut, were mixed into a deal that still checks out.
    assert (cut in cuts) == did_cut, (cuts, did_cut)
    expect(page.locator("#rematch")).to_be_visible()
    expect(page.locator("#download-record")).to_have_attribute("href", f"/api/tables/{table_id}/record")
    totals = [int(text) for text in page.locator(".side-total strong").all_inner_texts()]
    assert max(totals) >= 30, totals
    screenshot(page, "score")

    # The record: downloaded as a file, and the same JSON the replay viewer steps through.
    with page.expect_download() as download:
        page.click("#download-record")
    assert download.value.suggested_filename == f"kseri-{table_id}.json"
    record = json.loads(Path(download.value.path()).read_text())
    assert record["format"] == "kseri-record/1" and record["complete"]
    assert record["totals"] == totals
    page.click("#watch-replay")
    expect(page.locator("#replay-round option")).to_have_count(len(record["rounds"]))
    plays = len(record["rounds"][0]["plays"])
    expect(page.locator("#replay-counter")).to_have_text(f"0 / {plays}")
    page.keyboard.press("End")
    expect(page.locator("#replay-counter")).to_have_text(f"{plays} / {plays}")
    expect(page.locator("#replay-points")).to_be_visible()
    page.go_back()

    page.click("#rematch")
    page.wait_for_url(re.compile(r"/t/(?!" + re.escape(table_id) + r")[^/]+$"))
    expect(page.locator(".hand .card-button")).to_have_count(6)

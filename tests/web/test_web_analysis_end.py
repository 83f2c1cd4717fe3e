"""Issue 19, newcomer 2: the master's analysis is reached from the end panel, shows its progress
while it runs, then each player's accuracy with its units explained, a graph of the game, the
biggest mistakes and "next mistake"; at 1366×657 the centre pile with the card just played
stays in view."""

from __future__ import annotations

import itertools
import re

from browser_helpers import SIZES, ContextFactory, PageErrors, play_until, screenshot, start_bot_game
from playwright.sync_api import Response, expect

WAITING = "Waiting for the master: other games are being reviewed first…"

IN_VIEW = """node => { const r = node.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth; }"""

RECORD_PROGRESS_TEXTS = """window.progressTexts = [];
new MutationObserver(() => {
  const text = document.getElementById("analysis-progress-text")?.textContent;
  if (text && window.progressTexts.at(-1) !== text) window.progressTexts.push(text);
}).observe(document, { subtree: true, childList: true, characterData: true });"""
"""Every text the analysis's progress line shows, in order, kept in ``window.progressTexts``."""


def test_the_analysis_from_the_end_panel_with_progress_mistakes_and_a_graph(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    page.add_init_script(RECORD_PROGRESS_TEXTS)
    told: list[Response] = []  # the progress the server told the page, before the analysis came
    page.on("response", lambda response: told.append(response)
            if re.search(r"/api/tables/[^/]+/analysis(/progress)?$", response.url) else None)
    table_id = start_bot_game(page, server, target=20)
    play_until(page, ".overlay-panel .match-end", limit_s=240)
    page.click("#end-analyse")
    page.wait_for_url(f"**/t/{table_id}#analysis")
    expect(page.locator("#analysis-progress")).to_be_visible()  # at once, before any figure
    screenshot(page, "analysis-progress-laptop", full_page=False)
    # the one analysis worker may first finish another test's game (the server is shared)
    expect(page.locator("#analysis-summary li")).to_have_count(2, timeout=180000)
    # A game reviewed within one poll never shows a count (the worker is quick on a quiet
    # machine), so each state the server told the page while it waited must have been shown.
    until_done = list(itertools.takewhile(lambda response: not response.url.endswith("/analysis"), told))
    statuses = {response.json()["status"] for response in until_done if response.ok}
    shown = page.evaluate("window.progressTexts")
    assert shown[:1] == ["The master is reviewing every play…"], shown
    if "running" in statuses:
        assert any(re.fullmatch(r"Reviewing play \d+ of \d+…", text) for text in shown), shown
    if "queued" in statuses:
        assert WAITING in shown, shown
    expect(page.locator("#analysis-summary")).to_contain_text("points lost")
    page.click("#analysis-units summary")
    expect(page.locator("#analysis-units")).to_contain_text("game points")
    expect(page.locator("#analysis-graph")).to_be_visible()
    expect(page.locator("#analysis-graph polyline")).to_have_count(2)
    expect(page.locator("#mistake-list")).to_be_visible()

    page.click("#next-mistake")
    expect(page.locator("#analysis-note.mistake")).to_contain_text("more points on average")
    expect(page.locator("#analysis-graph .now")).to_have_count(1)
    shown = page.locator("#replay-counter").inner_text()
    page.click("#next-mistake")  # on to a later one, or the button is spent
    moved = page.locator("#replay-counter").inner_text() != shown
    assert moved or page.locator("#next-mistake").is_disabled()
    just_played = page.locator(".replay-centre .just-played")
    expect(just_played).to_have_count(1)
    assert just_played.evaluate(IN_VIEW), "the card just played is out of the 1366×657 window"
    assert page.locator("#analysis-note").evaluate(IN_VIEW)
    screenshot(page, "analysis-laptop", full_page=False)

    if page.locator("#mistake-list li").count():  # a listed mistake opens its play
        page.locator("#mistake-list li button").first.click()
        expect(page.locator("#analysis-note.mistake")).to_be_visible()

    phone = page_errors.watch(new_context(SIZES["phone"]).new_page())
    phone.goto(f"{server}/t/{table_id}#analysis")  # stored now: at once
    expect(phone.locator("#analysis-summary li")).to_have_count(2, timeout=30000)
    phone.click("#next-mistake")
    expect(phone.locator("#analysis-note.mistake")).to_be_visible()
    screenshot(phone, "analysis-phone")

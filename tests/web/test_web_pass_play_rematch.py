"""A rematch at the end of a pass-and-play match online (passplay.js): the device asks one
rematch per seat it holds, holds every seat of the new table, and the same people play again
in the same seats, the hand-over first (real Chromium, phone size)."""

from __future__ import annotations

import json
import re
import time

from browser_helpers import PHONE, ContextFactory, PageErrors
from playwright.sync_api import Page, expect
from test_web_pass_play import start_pass_and_play


def play_to_the_end(page: Page) -> int:
    """Tap through hand-overs and plays until the match is over; the hands played."""
    handover = page.locator("#handover-show")
    done = page.locator('.overlay-panel[data-key^="match"]')
    plays = 0
    deadline = time.monotonic() + 240
    while not done.count():
        assert time.monotonic() < deadline, "the match did not end in 240 s"
        if handover.count() and handover.is_enabled():
            seat = handover.locator("xpath=..").get_attribute("data-seat")
            handover.click()
            expect(page.locator(f'.me[data-seat="{seat}"] .hand')).to_be_visible()
            page.locator(".table-screen.my-turn .hand .card-button").first.click()
            expect(page.locator(f'.me[data-seat="{seat}"] .hand')).to_have_count(0)
            plays += 1
        elif page.locator("#next-round").count():
            page.click("#next-round")
        else:
            page.wait_for_timeout(50)
    return plays


def test_the_same_people_play_again_in_the_same_seats(server: str, new_context: ContextFactory,
                                                      page_errors: PageErrors) -> None:
    context = new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = page_errors.watch(context.new_page())
    first = start_pass_and_play(page, server)
    assert play_to_the_end(page) >= 2
    rematch = page.locator("#rematch")
    expect(rematch).to_be_visible()
    rematch.click()
    page.wait_for_url(re.compile(r"/t/(?!" + re.escape(first) + r"$)[^/]+$"))
    second = page.url.rsplit("/", 1)[1]
    held = json.loads(page.evaluate("localStorage.getItem('kseri.passplay')"))
    assert sorted(held[second]["tokens"]) == ["0", "1"]
    assert held[second]["tokens"] != held[first]["tokens"]
    expect(page.locator("#handover-show")).to_be_visible(timeout=30_000)
    table_of = "id => fetch('/api/tables/' + id).then(r => r.json())"
    before, after = page.evaluate(table_of, first), page.evaluate(table_of, second)
    assert before["rematch"] == second
    assert [seat["name"] for seat in after["seats"]] == [seat["name"] for seat in before["seats"]]
    assert after["seats"][0]["name"] == "Eleni"
    assert play_to_the_end(page) >= 2

"""Two people: one creates a table and sends the link, the other joins by it; they play a round."""

from __future__ import annotations

import time

from browser_helpers import DESKTOP, PHONE, ContextFactory, PageErrors, my_turn, open_lobby, play_one
from playwright.sync_api import expect


def test_invite_link_and_a_round_between_two_browsers(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    host = page_errors.watch(new_context(DESKTOP).new_page())
    open_lobby(host, server)
    host.fill("#player-name", "Eleni")
    host.check("#opponents-friends")
    expect(host.locator("#casual")).not_to_be_checked()
    host.click("#create-game")
    invite = host.locator("#invite-link")
    expect(invite).to_be_visible()
    link = invite.input_value()
    assert "/t/" in link

    guest = page_errors.watch(new_context(PHONE).new_page())
    guest.goto(link)
    expect(guest.get_by_role("heading", name="Join the table")).to_be_visible()
    guest.fill("#join-name", "Nikos")
    guest.click("#join-button")

    for page, other in ((host, "Nikos"), (guest, "Eleni")):
        expect(page.locator(".hand .card-button")).to_have_count(6)
        expect(page.locator(".opponent .opponent-name")).to_have_text(other)
        # Hints and the memory aid are off at a table between people unless all agreed.
        expect(page.locator("#hint-button")).to_have_count(0)
        expect(page.locator("#memory-button")).to_have_count(0)

    deadline = time.monotonic() + 120
    pages = (host, guest)
    while not all(page.locator(".round-result").count() for page in pages):
        assert time.monotonic() < deadline, "the round did not end"
        moved = False
        for page in pages:
            if my_turn(page):
                moved = play_one(page, "click") or moved
        if not moved:
            host.wait_for_timeout(50)
    host_scores = host.locator(".breakdown .match-total td").all_inner_texts()
    guest_scores = guest.locator(".breakdown .match-total td").all_inner_texts()
    # Each sees the same totals, from their own side: the columns are the sides in order.
    assert host_scores == guest_scores
    assert sum(int(score) for score in host_scores) >= 22
    for page in pages:
        expect(page.locator("#next-round")).to_be_visible()

    # A third person finds the table in the lobby and watches: no hand, the same score.
    watcher = page_errors.watch(new_context(DESKTOP).new_page())
    open_lobby(watcher, server)
    table_id = link.rsplit("/", 1)[1]
    watcher.locator(f'.table-item a[href="/t/{table_id}"]').click()
    expect(watcher.locator(".spectating")).to_have_text("You are watching this table.")
    expect(watcher.locator(".hand")).to_have_count(0)
    expect(watcher.locator(".opponent")).to_have_count(2)
    assert watcher.locator(".breakdown .match-total td").all_inner_texts() == host_scores

    # Both ready: the next round is dealt to both.
    for page in pages:
        page.click("#next-round")
    for page in pages:
        expect(page.locator(".hand .card-button")).to_have_count(6)
        expect(page.locator(".round-label")).to_have_text("Round 2")


def test_partners_by_link_against_the_computer(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    host = page_errors.watch(new_context(DESKTOP).new_page())
    open_lobby(host, server)
    host.fill("#player-name", "Eleni")
    host.check("#opponents-friends")
    host.check("#mode-2v2")
    expect(host.locator("#seat-2")).to_have_value("friend")
    host.select_option("#seat-1", "greedy")
    host.select_option("#seat-3", "random")
    host.click("#create-game")
    link = host.locator("#invite-link").input_value()

    guest = page_errors.watch(new_context(PHONE).new_page())
    guest.goto(link)
    guest.fill("#join-name", "Nikos")
    guest.click("#join-button")
    for page, partner in ((host, "Nikos"), (guest, "Eleni")):
        expect(page.locator(".hand .card-button")).to_have_count(4)
        expect(page.locator(".opponent")).to_have_count(3)
        expect(page.locator(".opponent", has_text="partner")).to_contain_text(partner)
        expect(page.locator(".side.mine .side-name")).to_have_text(f"You & {partner}")
    expect(host.locator(".opponent", has_text="Casual")).to_have_count(1)
    expect(host.locator(".opponent", has_text="Beginner")).to_have_count(1)

    deadline = time.monotonic() + 60
    played = {host: 0, guest: 0}
    while min(played.values()) < 2:
        assert time.monotonic() < deadline, played
        moved = False
        for page in (host, guest):
            # One who has played two cards waits for the other: the bots play fast, and the
            # turn can come round again before the slower page has played its second.
            if played[page] < 2 and my_turn(page) and play_one(page, "click"):
                played[page] += 1
                moved = True
        if not moved:
            host.wait_for_timeout(50)
    for page in (host, guest):
        expect(page.locator(".hand .card-button")).to_have_count(2)

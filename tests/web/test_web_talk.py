"""Table talk in the page: a player on a laptop says a phrase from the Talk menu, the other seat
on a phone sees it by the speaker's name in its own language (Greek), and a muted table (the
switch remembered after a reload) shows and announces nothing until talk is unmuted.
Screenshots of both sizes go to screenshots/; axe-core finds nothing serious in the open menu."""

from __future__ import annotations

import httpx
from browser_helpers import PHONE, SIZES, ContextFactory, PageErrors, axe_findings, screenshot, seat_browser
from playwright.sync_api import Page, expect


def friends_table(server: str) -> tuple[str, str, str]:
    seats = [{"kind": "human", "name": "Eleni"}, {"kind": "human", "name": "Nikos"}]
    created = httpx.post(f"{server}/api/tables", json={"rules": "greek", "seats": seats, "public": False})
    assert created.status_code == 201, created.text
    table_id = created.json()["table"]["id"]
    joined = httpx.post(f"{server}/api/tables/{table_id}/join", json={"name": "Nikos"})
    assert joined.status_code == 200, joined.text
    return table_id, created.json()["token"], joined.json()["token"]


def say(page: Page, phrase: str) -> None:
    page.click("#talk-button")
    page.click(f"#say-{phrase}")
    expect(page.locator("#talk-menu")).to_have_count(0)


def test_a_phrase_reaches_the_other_seat_in_its_language_and_mute_silences_it(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    table_id, host_token, guest_token = friends_table(server)
    host_context = new_context(SIZES["laptop"])
    guest_context = new_context(PHONE, locale="el-GR", has_touch=True, is_mobile=True)
    seat_browser(host_context, table_id, 0, host_token)
    seat_browser(guest_context, table_id, 1, guest_token)
    host = page_errors.watch(host_context.new_page())
    guest = page_errors.watch(guest_context.new_page())
    for page in (host, guest):
        page.goto(f"{server}/t/{table_id}")
        expect(page.locator(".hand .card-button")).to_have_count(6)

    # The host opens the menu (all six phrases), says "Good luck": the guest sees it in Greek.
    host.click("#talk-button")
    expect(host.locator("#talk-menu .phrase")).to_have_count(6)
    expect(host.locator("#say-nice-kseri")).to_have_text("Nice kseri!")
    assert axe_findings(host) == []
    host.click("#say-good-luck")
    expect(host.locator(".me .talk-bubble")).to_have_text("Good luck")
    bubble = guest.locator('.opponent[data-seat="0"] .talk-bubble')
    expect(bubble).to_have_text("Καλή τύχη")
    expect(guest.locator("#announcer")).to_contain_text("Eleni: Καλή τύχη")
    screenshot(guest, "talk-phone-said", full_page=False)

    # The guest answers "Thanks" from the phone; the host sees it in English.
    say(guest, "thanks")
    expect(host.locator('.opponent[data-seat="1"] .talk-bubble')).to_have_text("Thanks")
    host.click("#talk-button")
    screenshot(host, "talk-laptop-menu", full_page=False)
    host.focus("#say-oops")
    host.keyboard.press("Escape")  # closes the menu, back on its button
    expect(host.locator("#talk-menu")).to_have_count(0)
    expect(host.locator("#talk-button")).to_be_focused()

    # The guest mutes the table; the switch is remembered after a reload.
    guest.click("#talk-button")
    expect(guest.locator("#say-thanks")).to_be_in_viewport()
    assert guest.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(guest, "talk-phone-menu", full_page=False)
    guest.check("#talk-mute")
    expect(guest.locator(".talk-bubble")).to_have_count(0)
    guest.reload()
    expect(guest.locator(".hand .card-button")).not_to_have_count(0)
    guest.click("#talk-button")
    expect(guest.locator("#talk-mute")).to_be_checked()
    guest.click("#talk-button")

    # Said while muted: shown and announced nowhere on the guest's page. The guest's own phrase
    # still shows, and arrives after the host's (phrases are told in order), so by then the
    # muted one has come and gone unseen. Unmuted again, the next phrase shows.
    say(host, "well-played")
    expect(host.locator(".me .talk-bubble")).to_have_text("Well played")
    say(guest, "oops")
    expect(guest.locator(".me .talk-bubble")).to_have_text("Ουπς")
    expect(guest.locator(".opponent .talk-bubble")).to_have_count(0)
    expect(guest.locator("#announcer")).not_to_contain_text("Καλά έπαιξες")
    screenshot(guest, "talk-phone-muted", full_page=False)
    guest.click("#talk-button")
    guest.uncheck("#talk-mute")
    guest.click("#talk-button")
    say(host, "good-game")
    expect(bubble).to_have_text("Καλό παιχνίδι")
    expect(guest.locator("#announcer")).to_contain_text("Eleni: Καλό παιχνίδι")
    screenshot(guest, "talk-phone-unmuted", full_page=False)

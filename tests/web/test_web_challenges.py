"""Duplicate challenges in the page (js/challenges.js), in real Chromium: a guest is told why it
cannot challenge; an account challenges another from the lobby's link and plays its deals card
by card; the other finds the invitation in the lobby, accepts, plays, and both see the result
and the deals side by side; at a laptop's size (1366×657) and a phone's (390×844)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import PHONE, ContextFactory, PageErrors, axe_findings, screenshot, sign_up
from playwright.sync_api import BrowserContext, Page, Route, expect
from serverkit import LAX, Server

LAPTOP = {"width": 1366, "height": 657}


@pytest.fixture
def challenge_server(tmp_path: Path) -> Iterator[str]:
    """A server of its own."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", {"--limits": LAX}).start()
    yield server.http
    server.stop()


def play_the_deals(page: Page, limit: int = 400) -> None:
    """Click the first card of the hand whenever one can be played, until the set is done."""
    for _ in range(limit):
        ready = page.locator(".challenge-mine, .daily-hand .daily-hand-card:not([disabled])")
        ready.first.wait_for(timeout=30_000)
        if page.locator(".challenge-mine").count():
            return
        page.locator(".daily-hand .daily-hand-card:not([disabled])").first.click()
    pytest.fail("the deals did not end")


def check_axe(page: Page) -> None:
    findings = axe_findings(page)
    assert findings == [], "\n".join(findings)


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_a_challenge_from_the_lobby_to_the_deals_side_by_side(
        challenge_server: str, new_context: ContextFactory, page_errors: PageErrors,
        viewport: dict[str, int], size: str) -> None:
    url = challenge_server
    # a guest is told why challenges need an account
    guest = page_errors.watch(new_context(viewport).new_page())
    guest.goto(f"{url}/challenges")
    expect(guest.locator("#challenge-guest")).to_contain_text("Guests have neither")
    expect(guest.locator("#challenge-sign-in")).to_have_attribute("href", "/account")
    screenshot(guest, f"challenges-{size}-guest")
    check_axe(guest)

    author, opponent = f"ann{size}", f"bob{size}"
    ann_context, bob_context = new_context(viewport), new_context(viewport)
    sign_up(ann_context, url, author)
    bob_csrf = sign_up(bob_context, url, opponent)
    ann = page_errors.watch(ann_context.new_page())
    ann.goto(f"{url}/")
    ann.click("#challenges-link")
    ann.wait_for_url(re.compile(r"/challenges$"))
    expect(ann.locator("#challenge-form")).to_be_visible()
    ann.fill("#challenge-opponent", opponent)
    ann.select_option("#challenge-rules", "pisti")
    ann.fill("#challenge-deals", "4")
    screenshot(ann, f"challenges-{size}-new")
    check_axe(ann)
    ann.click("#challenge-send")
    ann.wait_for_url(re.compile(r"/challenges/\w+$"))
    challenge_id = ann.url.rsplit("/", 1)[1]
    expect(ann.locator("#challenge-status")).to_have_text(f"Waiting for {opponent} to answer.")
    ann.click("#challenge-play")
    expect(ann.locator("#daily-deal")).to_have_text("Deal 1 of 4")
    screenshot(ann, f"challenges-{size}-play")
    check_axe(ann)
    play_the_deals(ann)
    expect(ann.locator("#challenge-results")).to_contain_text("Your results, deal by deal:")
    expect(ann.locator(".challenge-waiting")).to_contain_text(f"Waiting for {opponent} to finish")

    # bob finds the invitation in the lobby, accepts; ann's results stay hidden from him
    bob = page_errors.watch(bob_context.new_page())
    bob.goto(f"{url}/")
    invitation = bob.locator("#challenge-invitations .challenge-invitation")
    expect(invitation).to_contain_text(f"{author} challenges you to 4 deals of Pisti")
    screenshot(bob, f"challenges-{size}-lobby-invitation", full_page=False)
    invitation.locator("a").click()
    bob.wait_for_url(re.compile(rf"/challenges/{challenge_id}$"))
    expect(bob.locator("#challenge-status")).to_have_text(f"{author} challenges you.")
    screenshot(bob, f"challenges-{size}-invited")
    bob.click(".challenge-accept")
    expect(bob.locator("#challenge-status")).to_contain_text("Accepted")
    expect(bob.locator("#challenge-play")).to_be_visible()
    assert bob.locator(".daily-versus").count() == 0
    # bob plays his set (through the API, as the page would), then sees the result
    state = bob_context.request.post(f"{url}/api/challenges/{challenge_id}/start",
                                     headers={"X-CSRF-Token": bob_csrf}).json()
    while not state["finished"]:
        state = bob_context.request.post(f"{url}/api/challenges/{challenge_id}/play",
                                         data={"card": state["view"]["hand"][-1]},
                                         headers={"X-CSRF-Token": bob_csrf}).json()
    bob.reload()
    expect(bob.locator("#challenge-status")).to_contain_text("Finished")
    expect(bob.locator("#challenge-result")).to_contain_text(re.compile(r"over the 4 deals"))
    expect(bob.locator(".daily-versus-deal")).to_have_count(4)
    expect(bob.locator(".daily-side-by-side thead").first).to_contain_text(author)
    # one deal open (the first where they parted), the rest folded under their results
    expect(bob.locator(".daily-versus-deal[open]")).to_have_count(1)
    folded = bob.locator(".daily-versus-deal:not([open])").first
    expect(folded.locator("table")).to_be_hidden()
    folded.locator("summary").click()
    expect(bob.locator(".daily-versus-deal[open]")).to_have_count(2)
    expect(bob.locator(".daily-versus-deal").locator("table").filter(visible=True)).to_have_count(2)
    screenshot(bob, f"challenges-{size}-side-by-side")
    check_axe(bob)
    assert bob.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # ann's list shows the finished challenge
    ann.click("text=All challenges")
    ann.wait_for_url(re.compile(r"/challenges$"))
    expect(ann.locator("#challenge-mine .challenge-item")).to_have_count(1)
    expect(ann.locator("#challenge-mine .challenge-status")).to_contain_text("Finished")
    screenshot(ann, f"challenges-{size}-list")
    check_axe(ann)
    assert ann.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_an_expired_challenge_says_who_never_played(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_context: ContextFactory,
        page_errors: PageErrors) -> None:
    clock = tmp_path / "now.txt"
    clock.write_text("2026-12-04T10:00:00+00:00")
    monkeypatch.setenv("KSERI_CLOCK_FILE", str(clock))  # the daily's clock knob
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", {"--limits": LAX}).start()
    try:
        ann, bob = new_context(PHONE), new_context(PHONE)
        ann_csrf = sign_up(ann, server.http, "annexp")
        bob_csrf = sign_up(bob, server.http, "bobexp")
        made = ann.request.post(f"{server.http}/api/challenges",
                                data={"opponent": "bobexp", "deals": 4, "hours": 1},
                                headers={"X-CSRF-Token": ann_csrf}).json()
        accepted = bob.request.post(f"{server.http}/api/challenges/{made['id']}/accept",
                                    headers={"X-CSRF-Token": bob_csrf})
        assert accepted.ok, accepted.text()
        clock.write_text("2026-12-04T11:00:00+00:00")  # the deadline
        page = page_errors.watch(bob.new_page())
        page.goto(f"{server.http}/challenges/{made['id']}")
        expect(page.locator("#challenge-status")).to_have_text("Expired: annexp, bobexp never played.")
        expect(page.locator("#challenge-play")).to_have_count(0)
        expect(page.locator(".daily-commitment")).to_contain_text("secret")
        screenshot(page, "challenges-phone-expired")
        check_axe(page)
    finally:
        server.stop()


def test_what_is_typed_into_the_form_survives_the_lists_arriving(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    """The challenges' lists come after the form: typing into it meanwhile loses neither the
    letters nor the focus (the form was once drawn anew when they came)."""
    context = new_context(LAPTOP)
    sign_up(context, server, "typist")
    page = page_errors.watch(context.new_page())
    held: list[Route] = []
    page.route(re.compile(r"/api/challenges$"), lambda route: held.append(route))  # held until let go
    with page.expect_request(re.compile(r"/api/challenges$")):
        page.goto(f"{server}/challenges")
    page.focus("#challenge-opponent")
    page.keyboard.type("bo")
    assert len(held) == 1, "the lists were asked for once, and are held"
    held[0].continue_()
    expect(page.locator("#challenge-mine")).to_be_visible()
    page.keyboard.type("b")
    expect(page.locator("#challenge-opponent")).to_have_value("bob")
    expect(page.locator("#challenge-opponent")).to_be_focused()


def play_via_api(context: BrowserContext, url: str, challenge_id: str, csrf: str, last: bool) -> None:
    """Play one's whole set through the API (as the page would), the first or last card each time."""
    headers = {"X-CSRF-Token": csrf}
    state = context.request.post(f"{url}/api/challenges/{challenge_id}/start", headers=headers).json()
    while not state["finished"]:
        hand = state["view"]["hand"]
        state = context.request.post(f"{url}/api/challenges/{challenge_id}/play",
                                     data={"card": hand[-1] if last else hand[0]},
                                     headers=headers).json()


@pytest.mark.parametrize(("viewport", "size"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_rated_challenges_withdrawing_records_and_results_on_the_profile(
        challenge_server: str, new_context: ContextFactory, page_errors: PageErrors,
        viewport: dict[str, int], size: str) -> None:
    url = challenge_server
    author, opponent = f"cam{size}", f"dan{size}"
    cam_context, dan_context = new_context(viewport), new_context(viewport)
    cam_csrf = sign_up(cam_context, url, author)
    dan_csrf = sign_up(dan_context, url, opponent)
    cam = page_errors.watch(cam_context.new_page())
    # a rated challenge made in the page, then withdrawn by its author before dan plays
    cam.goto(f"{url}/challenges")
    expect(cam.locator("#challenge-mine")).to_be_visible()  # the lists loaded: the form drawn for good
    cam.fill("#challenge-opponent", opponent)
    cam.select_option("#challenge-rules", "pisti")
    cam.fill("#challenge-deals", "4")
    cam.check("#challenge-rated")
    screenshot(cam, f"challenges-{size}-rated-new")
    check_axe(cam)
    cam.click("#challenge-send")
    cam.wait_for_url(re.compile(r"/challenges/\w+$"))
    expect(cam.locator("#challenge-status")).to_have_text(f"Waiting for {opponent} to answer.")
    expect(cam.locator("#challenge-kind")).to_have_text("rated")
    expect(cam.locator("#challenge-withdraw")).to_be_visible()
    cam.click("#challenge-withdraw")
    expect(cam.locator("#challenge-status")).to_have_text(f"Withdrawn by {author}.")
    expect(cam.locator("#challenge-withdraw")).to_have_count(0)
    expect(cam.locator("#challenge-play")).to_have_count(0)

    # a rated challenge both play: the ratings' change, each side's records to download
    made = cam_context.request.post(f"{url}/api/challenges", headers={"X-CSRF-Token": cam_csrf}, data={
        "opponent": opponent, "rules": "pisti", "deals": 4, "rated": True}).json()
    assert dan_context.request.post(f"{url}/api/challenges/{made['id']}/accept",
                                    headers={"X-CSRF-Token": dan_csrf}).ok
    play_via_api(cam_context, url, made["id"], cam_csrf, last=False)
    play_via_api(dan_context, url, made["id"], dan_csrf, last=True)
    cam.goto(f"{url}/challenges/{made['id']}")
    expect(cam.locator("#challenge-status")).to_contain_text("Finished")
    expect(cam.locator("#challenge-rating")).to_contain_text(re.compile(rf"{author}: rating 1500\? → \d+\?"))
    expect(cam.locator("#challenge-rating")).to_contain_text(f"{opponent}: rating")
    links = cam.locator("#challenge-records .challenge-record")
    expect(links).to_have_count(2)
    expect(links.first).to_have_attribute("download", f"challenge-{made['id']}-author.jsonl")
    downloaded = cam_context.request.get(f"{url}{links.first.get_attribute('href')}")
    assert downloaded.ok and len(downloaded.text().splitlines()) == 4
    screenshot(cam, f"challenges-{size}-rated-over")
    screenshot(cam, f"challenges-{size}-rated-over-head", full_page=False)
    check_axe(cam)
    assert cam.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # the profile lists the challenge with its result and opponent
    cam.goto(f"{url}/p/{author}")
    results = cam.locator("#profile-results")
    expect(results.locator("#result-tournaments")).to_have_text("No tournaments played yet.")
    entry = results.locator(".result-challenge")
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text(re.compile(rf"(Won|Lost|Drawn) against {opponent}"))
    expect(entry).to_contain_text("4 deals, difference")
    entry.locator("a").click()
    cam.wait_for_url(re.compile(rf"/challenges/{made['id']}$"))
    cam.goto(f"{url}/p/{author}")
    expect(cam.locator("#profile-results .result-challenge")).to_have_count(1)
    cam.locator("#profile-results").scroll_into_view_if_needed()
    screenshot(cam, f"profile-{size}-results")
    check_axe(cam)
    assert cam.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

"""Helpers for the browser tests: screenshots, and playing through the page as a person would."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, expect

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "screenshots"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}

SIZES = {"laptop": {"width": 1366, "height": 657}, "hd": {"width": 1280, "height": 720},
         "desktop": {"width": 1440, "height": 900}, "fullhd": {"width": 1920, "height": 1080},
         "phone": {"width": 390, "height": 844}, "phone-landscape": {"width": 844, "height": 390}}
"""The window sizes the table must fit without scrolling (a 1366×768 laptop's browser window, …)."""
AXE = ROOT / "build" / "axe" / "node_modules" / "axe-core" / "axe.min.js"

PASSWORD = "correct horse battery"
"""The password of every account the browser tests make."""

ContextFactory = Callable[..., BrowserContext]
"""The ``new_context`` fixture: a new browser context (a separate person) per call."""


class PageErrors:
    """JavaScript errors seen on the pages of a test (each test asserts there were none)."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Page) -> Page:
        """Record the page's uncaught errors; returns the page."""
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        return page


def screenshot(page: Page, name: str, *, full_page: bool = True) -> Path:
    """Save a screenshot (of the whole page, or of the window) under screenshots/; its path."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 10_000, f"{path} looks empty"
    return path


def sign_up(context: BrowserContext, url: str, username: str) -> str:
    """Sign ``username`` up in ``context`` through the API (a person of the test, signed in);
    the session's CSRF token."""
    answer = context.request.post(f"{url}/api/account/signup",
                                  data={"username": username, "password": PASSWORD})
    assert answer.status == 201, answer.text()
    csrf: str = answer.json()["csrf"]
    return csrf


def sign_up_on_the_page(page: Page, url: str, username: str) -> None:
    """Sign ``username`` up through the account page's form, as a person does, and wait for
    their profile."""
    page.goto(f"{url}/account")
    page.fill("#signup-username", username)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_url(re.compile(rf"/p/{username}$"))
    expect(page.locator("#profile-name")).to_have_text(username)
    expect(page.locator("#nav-profile")).to_have_text(username)


def settle(page: Page) -> None:
    """Wait until the page is at rest: every finite animation (a card flying in may cross the
    window's edge on its way) has finished."""
    page.evaluate("""() => Promise.all(document.getAnimations()
      .filter(a => a.effect && a.effect.getComputedTiming().iterations !== Infinity)
      .map(a => a.finished.catch(() => null)))""")


def open_lobby(page: Page, url: str) -> None:
    """Open the lobby and wait until its form can be used."""
    page.goto(f"{url}/")
    expect(page.locator("#create-game")).to_be_enabled()


def start_bot_game(page: Page, url: str, name: str = "Eleni", level: str = "greedy",
                   target: int | None = 30, clock: int | None = None, target_rule: str | None = None) -> str:
    """Create a game against a bot from the lobby form; returns the table id. ``target_rule``
    "higher-wins" ends the match in a round or two: under the Greek escalation a low target is
    often passed by both sides at once and rises by 100, and a first-card player against random
    then plays up to two dozen rounds (9 at the 95th percentile, over 400 seeds)."""
    open_lobby(page, url)
    page.fill("#player-name", name)
    page.check("#opponents-bots")
    page.check(f"#level-{level}")
    if clock is not None:
        page.fill("#clock", str(clock))
        page.locator("#clock").dispatch_event("change")
    if target is not None or target_rule is not None:
        page.click(".options summary")
    if target is not None:
        page.fill("#opt-target", str(target))
        page.locator("#opt-target").dispatch_event("change")
    if target_rule is not None:
        page.select_option("#opt-target_rule", target_rule)
    page.click("#create-game")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    expect(page.locator(".hand")).to_be_visible()
    return page.url.rsplit("/", 1)[1]


def seq_of(page: Page) -> int:
    """The last state the page has drawn."""
    return int(page.locator(".table-screen").get_attribute("data-seq") or 0)


def wait_past(page: Page, seq: int) -> None:
    """Wait until the page has drawn a state newer than ``seq``."""
    page.wait_for_function("seq => Number(document.querySelector('.table-screen').dataset.seq) > seq",
                           arg=seq, timeout=10000)


def my_turn(page: Page) -> bool:
    """Whether the page shows that it is this player's turn."""
    return page.locator(".table-screen.my-turn").count() > 0


def hand_cards(page: Page) -> list[str]:
    """The cards of the hand, as shown."""
    return [str(code) for code in page.locator(".hand .card-button").evaluate_all(
        "nodes => nodes.map(n => n.dataset.card)")]


def play_one(page: Page, how: str = "click") -> bool:
    """Play the first card of the hand (by click, tap or key); whether a play was sent."""
    card = page.locator(".table-screen.my-turn .hand .card-button").first
    if not card.count():
        return False
    seq = seq_of(page)
    if how == "click":
        card.click()
    elif how == "tap":
        card.tap()
    else:
        page.keyboard.press("1")
    wait_past(page, seq)
    return True


def play_until(page: Page, done_selector: str, *, how: str = "click", limit_s: float = 120,
               cut: str | None = None) -> bool:
    """Play whenever it is this page's turn and go on to the next rounds (cutting with ``cut``
    when this seat cuts), until ``done_selector`` shows; whether this seat cut."""
    deadline = time.monotonic() + limit_s
    done = page.locator(done_selector)
    did_cut = False
    while not done.count():
        assert time.monotonic() < deadline, f"{done_selector} did not show in {limit_s} s"
        if page.locator("#next-round").count():
            if done.count():  # the round ended since the loop's check, and that is what is awaited
                break
            if cut is not None and page.locator("#cut-box").count():
                if not page.locator("#cut-text").is_visible():
                    page.click("#cut-box summary")
                page.fill("#cut-text", cut)
                did_cut = True
            page.click("#next-round")
        elif not (my_turn(page) and play_one(page, how)):
            page.wait_for_timeout(50)
    return did_cut


def spoken(card: str) -> str:
    """A card's name as the page says it in English, e.g. ``10 of diamonds`` for ``TD``."""
    ranks = {"T": "10", "J": "Jack", "Q": "Queen", "K": "King", "A": "Ace"}
    suits = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
    return f"{ranks.get(card[0], card[0])} of {suits[card[1]]}"


def seat_browser(context: BrowserContext, table_id: str, seat: int, token: str) -> None:
    """Give the browser the seat's token, as if it had created or joined the table."""
    seats = {table_id: {"seat": seat, "token": token, "since": 1}}
    context.add_init_script(f"localStorage.setItem('kseri.seats', {json.dumps(json.dumps(seats))})")


def axe_findings(page: Page) -> list[str]:
    """The serious and critical accessibility findings of axe-core on the page as it is."""
    assert AXE.exists(), f"{AXE} is missing: scripts/test installs it (npm i --prefix build/axe axe-core@4)"
    # evaluated through the browser's debugging protocol: the page's Content-Security-Policy
    # (scripts from the server's own files only) would refuse an injected script tag
    page.evaluate(AXE.read_text(encoding="utf-8"))
    found: list[str] = page.evaluate("""async () => {
        const result = await axe.run(document, { resultTypes: ['violations'] });
        return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
          .map(v => `${v.impact} ${v.id}: ${v.help} `
                    + `(${v.nodes.map(n => n.target.join(' ')).slice(0, 3).join('; ')})`);
    }""")
    return found

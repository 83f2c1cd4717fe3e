"""Pass and play offline (passplay-offline.js, the engine's ``OfflineTable.new_shared`` under
Pyodide), in real Chromium at a phone's size with the browser offline after one visit: two
people play a whole game, the hand-over screen between their turns, never two hands on screen
(what is on screen is recorded at every step), the page reloaded in the middle (it resumes at
the hand-over); then the rematch, the same people in the same seats. Screenshots of the
set-up and the hand-over at phone and laptop sizes, axe-clean."""

from __future__ import annotations

import time

from browser_helpers import PHONE, SIZES, ContextFactory, PageErrors, axe_findings, screenshot, settle
from playwright.sync_api import Page, expect

LOAD_MS = 120_000  # Pyodide's start on a loaded machine
PLAYABLE = ".offline-hand .card-button[aria-disabled=false]"
NAMES = ("Eleni", "Nikos")

ON_SCREEN = """() => ({
  hands: [...document.querySelectorAll(".offline-hand")].map(n => n.getAttribute("aria-label")),
  cards: document.querySelectorAll(".offline-hand .card-button").length,
  handover: document.querySelector("#handover")?.dataset.seat ?? null,
  handoverText: document.querySelector("#handover-title")?.textContent ?? null,
  over: Boolean(document.querySelector("#offline-download")),
  moving: document.querySelectorAll(".flying-card, .sweeping").length,
})"""
"""What the page shows now: the hands on screen (by their labels), the hand-over's seat, the
cards still moving (a play flying to the pile, a capture swept to its taker)."""


def check_axe(page: Page) -> None:
    findings = axe_findings(page)
    assert findings == [], "\n".join(findings)


def on_screen(page: Page) -> dict[str, object]:
    seen: dict[str, object] = page.evaluate(ON_SCREEN)
    assert len(seen["hands"]) <= 1, f"two hands on screen: {seen}"  # type: ignore[arg-type]
    assert not (seen["hands"] and seen["handover"] is not None), f"a hand during the hand-over: {seen}"
    assert not (seen["moving"] and seen["handover"] is not None), f"a hand-over mid-motion: {seen}"
    return seen


def test_two_people_play_offline_on_one_phone_across_a_reload_then_a_rematch(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    context = new_context(viewport=PHONE, has_touch=True, is_mobile=True, service_workers="allow")
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/")
    page.wait_for_function("() => navigator.serviceWorker.controller?.state === 'activated'", timeout=LOAD_MS)
    page.goto(f"{server}/offline")
    page.locator("#offline-keep").click(timeout=LOAD_MS)  # the engine is kept only when asked
    expect(page.locator("#offline-kept")).to_be_visible(timeout=LOAD_MS)
    context.set_offline(True)
    page.goto(f"{server}/offline")
    page.locator("#offline-passplay").click(timeout=LOAD_MS)
    expect(page.locator("#passplay-start")).to_be_visible(timeout=LOAD_MS)
    for seat, name in enumerate(NAMES):
        expect(page.locator(f"#passplay-who-{seat}")).to_have_value("person")
        page.fill(f"#passplay-name-{seat}", name)
    page.check("#passplay-one-round")
    settle(page)
    screenshot(page, "pass-play-offline-setup-phone")
    check_axe(page)
    page.locator("#passplay-start").click()

    steps: list[dict[str, object]] = []
    reloaded = False
    deadline = time.monotonic() + 400
    while True:
        assert time.monotonic() < deadline, "the game did not end in 400 s"
        page.wait_for_selector(f"#handover-show, #offline-next, #offline-download, {PLAYABLE}",
                               timeout=60_000)
        seen = on_screen(page)
        steps.append(seen)
        if seen["over"]:
            break
        if page.locator("#offline-next").count():
            page.locator("#offline-next").click()
            continue
        if seen["handover"] is not None:
            seat = int(str(seen["handover"]))
            assert seen["cards"] == 0
            assert seen["handoverText"] == f"Pass the device to {NAMES[seat]}"
            if len(steps) == 1:
                settle(page)
                screenshot(page, "pass-play-offline-handover-phone")
                check_axe(page)
            if len(steps) > 9 and not reloaded:
                centre = page.locator(".centre").inner_text()
                page.reload()
                expect(page.locator("#handover-show")).to_be_visible(timeout=LOAD_MS)
                assert page.locator(".centre").inner_text() == centre, "resumed where it was"
                assert on_screen(page)["handover"] == str(seat), "resumed at the same hand-over"
                reloaded = True
            page.locator("#handover-show").click()
            expect(page.locator(".offline-hand")).to_have_attribute("aria-label", f"{NAMES[seat]}'s hand")
            shown = on_screen(page)
            steps.append(shown)
            assert shown["handover"] is None and shown["cards"]
            page.locator(PLAYABLE).first.click()
            expect(page.locator(".offline-hand")).to_have_count(0)
            continue
        page.wait_for_timeout(50)
    assert reloaded
    handovers = [step["handover"] for step in steps if step["handover"] is not None]
    hands = [step["hands"][0] for step in steps if step["hands"]]  # type: ignore[index]
    assert set(handovers) == {"0", "1"} and len(hands) >= 20
    assert set(hands) == {f"{name}'s hand" for name in NAMES}
    settle(page)
    screenshot(page, "pass-play-offline-end-phone")
    check_axe(page)

    # the rematch: the same people in the same seats, a new deal
    page.locator("#passplay-rematch").click()
    expect(page.locator("#handover-show")).to_be_visible(timeout=30_000)
    expect(page.locator(".offline-log li")).to_have_count(0)
    assert on_screen(page)["handoverText"] in {f"Pass the device to {name}" for name in NAMES}
    assert page.locator(".opponents").inner_text().count("Eleni") == 1

    page.set_viewport_size(SIZES["laptop"])
    settle(page)
    screenshot(page, "pass-play-offline-handover-laptop")
    check_axe(page)
    page.locator("#offline-new").click()
    expect(page.locator("#passplay-start")).to_be_visible()
    expect(page.locator("#passplay-name-0")).to_have_value("Eleni")
    screenshot(page, "pass-play-offline-setup-laptop")

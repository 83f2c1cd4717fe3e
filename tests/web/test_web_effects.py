"""Sounds and motion: sounds for plays, captures and your turn once the person has touched the
page (never before), silenced by the remembered mute toggle; flights, sweeps and celebrations
that become fades (showing the same text) with reduced motion."""

from __future__ import annotations

import httpx
import pytest
from browser_helpers import DESKTOP, ContextFactory, PageErrors, play_one, seat_browser
from playwright.sync_api import Page, expect


def sounds(page: Page) -> list[dict[str, str]]:
    found: list[dict[str, str]] = page.evaluate("window.kseriEffects.sounds")
    return found


def motions(page: Page) -> list[dict[str, str]]:
    found: list[dict[str, str]] = page.evaluate("window.kseriEffects.motions")
    return found


def bot_table(server: str) -> dict[str, object]:
    answer = httpx.post(f"{server}/api/tables", json={
        "rules": "greek", "seats": [{"kind": "human", "name": "Eleni"}, {"kind": "bot", "level": "greedy"}],
        "casual": True, "public": False})
    created: dict[str, object] = answer.json()
    return created


def test_sounds_wait_for_a_touch_and_obey_the_mute_toggle(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    created = bot_table(server)
    table_id = created["table"]["id"]  # type: ignore[index]
    player_context = new_context(DESKTOP, reduced_motion="no-preference")
    seat_browser(player_context, table_id, created["seat"], created["token"])  # type: ignore[arg-type]
    player = page_errors.watch(player_context.new_page())
    player.goto(f"{server}/t/{table_id}")
    player.wait_for_selector(".hand")
    watcher = page_errors.watch(new_context(DESKTOP).new_page())
    watcher.goto(f"{server}/t/{table_id}")
    expect(watcher.locator(".spectating")).to_be_visible()
    for _ in range(3):
        player.wait_for_selector(".table-screen.my-turn")
        assert play_one(player)
    player.wait_for_selector(".table-screen.my-turn")
    heard = sounds(player)
    assert {"name": "play", "status": "played"} in heard, heard
    assert {"name": "turn", "status": "played"} in heard, heard
    assert all(s["status"] == "played" for s in heard[-3:]), heard
    assert {m["style"] for m in motions(player)} == {"motion"}
    # The watcher never touched the page: every sound was held back.
    watched = sounds(watcher)
    assert watched and {s["status"] for s in watched} == {"before-interaction"}, watched

    # Mute: the next sounds are silenced, and the choice survives a reload.
    expect(player.locator("#sound-button")).to_have_attribute("aria-pressed", "true")
    player.click("#sound-button")
    expect(player.locator("#sound-button")).to_have_attribute("aria-pressed", "false")
    count = len(sounds(player))
    player.wait_for_selector(".table-screen.my-turn")
    assert play_one(player)
    player.wait_for_selector(".table-screen.my-turn")
    after = sounds(player)[count:]
    assert after and {s["status"] for s in after} == {"muted"}, after
    player.reload()
    expect(player.locator("#sound-button")).to_have_attribute("aria-pressed", "false")
    # Your turn is said after a reload too.
    player.wait_for_selector(".table-screen.my-turn")
    expect(player.locator("#announcer")).to_contain_text("Your turn")
    expect(player.locator("#your-turn-flag")).to_have_text("Your turn")


@pytest.mark.parametrize(("motion", "style"), [("no-preference", "motion"), ("reduce", "fade")])
def test_celebrations_move_or_fade_and_say_the_same(
        motion: str, style: str, server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    created = bot_table(server)
    table_id = created["table"]["id"]  # type: ignore[index]
    context = new_context(DESKTOP, reduced_motion=motion)
    seat_browser(context, table_id, created["seat"], created["token"])  # type: ignore[arg-type]
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/t/{table_id}")
    page.wait_for_selector(".table-screen.my-turn")
    assert play_one(page)
    page.wait_for_selector(".table-screen.my-turn")
    assert {m["style"] for m in motions(page)} == {style}
    flights = page.evaluate("window.kseriEffects.motions.filter(m => m.name === 'fly').length")
    assert flights >= 1
    page.evaluate("async () => (await import('/static/js/effects.js'))"
                  ".celebrate('jack-kseri', 'Jack kseri! +20')")
    celebration = page.locator(".celebration.jack-kseri")  # the bot's own kseri may be showing too
    expect(celebration).to_have_class(f"celebration jack-kseri {style}")
    expect(celebration.locator(".celebration-text")).to_have_text("Jack kseri! +20")
    sparks = celebration.locator(".spark").count()
    assert (sparks > 0) if style == "motion" else (sparks == 0)
    animation = celebration.locator(".celebration-text").evaluate("n => getComputedStyle(n).animationName")
    assert animation == ("pop" if style == "motion" else "fade-in-out")
    expect(celebration).to_have_count(0, timeout=5000)


def test_celebrations_keep_the_centre_in_sight_and_a_loss_has_no_confetti(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    created = bot_table(server)
    table_id = created["table"]["id"]  # type: ignore[index]
    context = new_context(DESKTOP, reduced_motion="no-preference")
    seat_browser(context, table_id, created["seat"], created["token"])  # type: ignore[arg-type]
    page = page_errors.watch(context.new_page())
    page.goto(f"{server}/t/{table_id}")
    page.wait_for_selector(".table-screen.my-turn")
    page.evaluate("async () => (await import('/static/js/effects.js'))"
                  ".celebrate('kseri', 'Kseri! +10', 4000, document.querySelector('#centre-pile'))")
    text = page.locator(".celebration.kseri .celebration-text")
    expect(text).to_have_text("Kseri! +10")
    page.wait_for_timeout(900)  # the pop has settled at its full size
    clear = page.evaluate("""() => {
        const a = document.querySelector('.celebration.kseri .celebration-text').getBoundingClientRect();
        const b = document.querySelector('#centre-pile').getBoundingClientRect();
        return a.bottom <= b.top || a.top >= b.bottom || a.right <= b.left || a.left >= b.right;
    }""")
    assert clear
    page.evaluate("async () => (await import('/static/js/effects.js'))"
                  ".celebrate('match-end', 'Computer wins the match', 2600)")
    lost = page.locator(".celebration.match-end")
    expect(lost.locator(".celebration-text")).to_have_text("Computer wins the match")
    assert lost.locator(".spark").count() == 0

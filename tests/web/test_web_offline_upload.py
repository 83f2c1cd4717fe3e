"""A game finished offline is added to the signed-in player's history once the page is back
online (docs/web.md, "Installable and offline"): the offline table's end keeps it in the device's
list of finished games, "Add to my history" shows only online and signed in, and the server lists
it as offline and unrated."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser_helpers import PHONE, SIZES, ContextFactory, PageErrors, screenshot, sign_up
from playwright.sync_api import expect
from serverkit import Server

from kseri.offline import OfflineTable

PLAYABLE = ".offline-hand .card-button[aria-disabled=false]"
LOAD_MS = 120_000  # Pyodide's start on a loaded machine
SEED = 5


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}").start()
    yield server
    server.stop()


def one_play_from_the_end() -> str:
    """A saved offline game (``OfflineTable.saved``) against the greedy bot where the person's
    next play is their last of the match (the bots played both seats up to there)."""
    played = OfflineTable.new("greek", "greedy", SEED, people=0)
    last_mine = 0
    plays = 0
    while not played.is_over():
        state = json.loads(played.state())
        if state["phase"] == "round-over":
            played.next_round()
            continue
        if state["turn"] == 0:
            last_mine = plays
        played.bot_play()
        plays += 1
    table = OfflineTable.new("greek", "greedy", SEED, people=0)
    for _ in range(last_mine):
        if json.loads(table.state())["phase"] == "round-over":
            table.next_round()
        table.bot_play()
    if json.loads(table.state())["phase"] == "round-over":
        table.next_round()
    saved: dict[str, object] = json.loads(table.saved())
    return json.dumps({**saved, "people": 1})


def test_a_game_finished_offline_is_uploaded_once_back_online(own_server: Server, new_context: ContextFactory,
                                                              page_errors: PageErrors) -> None:
    context = new_context(viewport=SIZES["laptop"])
    page = page_errors.watch(context.new_page())
    sign_up(context, own_server.http, "Eleni")
    saved = json.dumps(one_play_from_the_end())
    context.add_init_script("if (!localStorage.getItem('test.seeded')) {"
                            " localStorage.setItem('test.seeded', '1');"
                            f" localStorage.setItem('kseri.offline.game', {saved}); }}")
    page.goto(f"{own_server.http}/offline")
    expect(page.locator(PLAYABLE).first).to_be_visible(timeout=LOAD_MS)

    context.set_offline(True)
    expect(page.locator(".offline-notice")).to_be_visible()
    page.locator(PLAYABLE).first.click()
    expect(page.locator("#offline-download")).to_be_visible(timeout=60_000)
    assert page.locator(".offline-upload-button").count() == 0, "offline: nothing to upload to"

    context.set_offline(False)
    upload = page.locator(".offline-result .offline-upload-button")
    expect(upload).to_be_visible(timeout=30_000)
    screenshot(page, "offline-upload-laptop")
    upload.click()
    expect(page.locator(".offline-result .offline-uploaded")).to_be_visible(timeout=30_000)
    expect(page.locator(".offline-notice")).to_have_count(0)

    games = [json.loads(line) for line in
             httpx.get(f"{own_server.http}/api/players/Eleni/games", timeout=30).text.splitlines()]
    assert [(g["offline"], g["seat"]) for g in games] == [(True, 0)]
    assert games[0]["complete"] and games[0]["names"][0] == "You"
    profile = httpx.get(f"{own_server.http}/api/players/Eleni", timeout=30).json()
    assert profile["offline_games"] == 1 and profile["ratings"] == []

    # the profile lists it as played offline, and its replay opens
    page.goto(f"{own_server.http}/p/Eleni")
    row = page.locator(".game-item")
    expect(row).to_have_count(1, timeout=30_000)
    expect(row.locator(".offline-mark")).to_have_text("played offline, unrated")
    row.get_by_role("link").click()
    expect(page.locator(".replay-controls")).to_be_visible(timeout=30_000)
    expect(page.locator(".replay-refused")).to_have_count(0)
    assert page.evaluate("location.pathname + location.hash").endswith("#replay")
    page.goto(f"{own_server.http}/offline")

    # the device's list of finished games says it is in the history, after a reload too
    page.locator("#offline-new").click()
    page.reload()
    finished = page.locator(".offline-finished li")
    expect(finished).to_have_count(1, timeout=LOAD_MS)
    expect(finished.locator(".offline-uploaded")).to_be_visible()
    page.set_viewport_size(PHONE)
    screenshot(page, "offline-finished-phone")

"""The installable app and its offline play against the computer (docs/web.md, "Installable and
offline"): Chromium's installability checks pass; after one visit the page opens and plays with
the server gone and the browser offline, a game survives reloads and its record verifies; and
the rules the page runs (the project's engine under Pyodide) play every preset exactly as
``Match`` does on the server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import PHONE, SIZES, ContextFactory, PageErrors, axe_findings, screenshot
from offline_rules import BROWSER_DRIVER, server_transcript
from playwright.sync_api import Page, expect
from serverkit import Server

from kseri.offline import LEVELS
from kseri.rules import PRESETS
from kseri.server.api.offline import PYODIDE_DIR, PYODIDE_FILES

MATCHES_PER_LEVEL = 20
"""Seeded matches per preset and level in the differential test (3,674 rounds, 199,492 plays in all)."""

ENGINE = "await (await import('/static/js/offline-engine.js')).loadEngine()"
PLAYABLE = ".offline-hand .card-button[aria-disabled=false]"
LOAD_MS = 120_000  # Pyodide's start on a loaded machine
WATCH_PROGRESS = """() => {
  window.progressTexts = [];
  new MutationObserver(() => {
    const text = document.querySelector('#offline-progress-text')?.textContent;
    if (text && text !== window.progressTexts.at(-1)) window.progressTexts.push(text);
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
}"""
"""The texts of the engine's download progress, as the page shows them."""


@pytest.fixture(autouse=True)
def pyodide_installed() -> None:
    missing = [name for name in PYODIDE_FILES if not (PYODIDE_DIR / name).is_file()]
    assert not missing, (f"Pyodide is missing from {PYODIDE_DIR}: scripts/test installs it "
                         "(npm install --prefix build/pyodide pyodide@0.29)")


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    """A server of this test's own, to stop once the page has been visited."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", {"--bot-delay": "0.05"}).start()
    yield server
    server.stop()


@pytest.mark.slow
def test_the_page_runs_the_engine_rules_exactly_as_match(server: str, new_context: ContextFactory,
                                                          page_errors: PageErrors) -> None:
    """The differential test: seeded matches of every preset at every offline level, played in
    the page through ``kseri.offline.OfflineTable`` and on the server side by ``Match``, give the
    same plays, captures, kseris, round results, totals and winners."""
    page = page_errors.watch(new_context().new_page())
    page.goto(f"{server}/offline")
    expect(page.locator("#offline-play")).to_be_visible(timeout=LOAD_MS)
    page.evaluate(f"async (code) => ({ENGINE}).runPython(code)", BROWSER_DRIVER)
    rounds = 0
    for preset in PRESETS:
        for number, level in enumerate(LEVELS):
            seeds = [1000 * number + seed for seed in range(MATCHES_PER_LEVEL)]
            played = json.loads(page.evaluate(
                f"async ([preset, level, seeds]) => {{ const py = {ENGINE};"
                " return py.globals.get('offline_transcripts')(preset, level, py.toPy(seeds)); }",
                [preset, level, seeds]))
            for browser, seed in zip(played, seeds, strict=True):
                expected = server_transcript(preset, level, seed)
                for index, (got, want) in enumerate(zip(browser["rounds"], expected["rounds"], strict=False)):
                    assert got == want, f"{preset}, {level}, seed {seed}: round {index + 1} differs"
                assert browser == expected, f"{preset}, {level}, seed {seed}: the match differs"
                rounds += len(browser["rounds"])
    assert rounds > 2000


def hand(page: Page) -> list[str]:
    buttons = page.locator(".offline-hand .card-button")
    cards: list[str] = buttons.evaluate_all("(b) => b.map((x) => x.dataset.card)")
    return cards


def wait_for_my_turn_or_the_end(page: Page) -> None:
    page.wait_for_function(
        f"() => document.querySelector('{PLAYABLE}, #offline-next, #offline-download')",
        timeout=60_000)


@pytest.mark.slow
def test_installable_then_a_whole_game_offline_across_reloads(tmp_path: Path, own_server: Server,
                                                              new_context: ContextFactory,
                                                              page_errors: PageErrors) -> None:
    """One visit online, where the player keeps the game for offline play (the engine is not
    fetched before); then the server is gone and the browser offline: the page opens, a game
    against the expert is played to its end, reloaded in the middle (it resumes where it was),
    and the record it downloads passes ``kseri verify`` and ``kseri replay``."""
    context = new_context(viewport=SIZES["laptop"], service_workers="allow")
    page = page_errors.watch(context.new_page())
    engine_requests: list[str] = []
    page.on("request", lambda request: engine_requests.append(request.url)
            if "/offline/pyodide/" in request.url else None)
    page.goto(f"{own_server.http}/")
    expect(page.locator("#offline-link")).to_be_visible()
    # Installed (the shell kept) and in charge of the page.
    page.wait_for_function("() => navigator.serviceWorker.controller?.state === 'activated'",
                           timeout=LOAD_MS)
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [] and json.loads(manifest["data"])["display"] == "standalone"
    # Headless Playwright's contexts are incognito ones, where Chromium offers no install;
    # every other installability check (manifest, icons, service worker, offline start) passes.
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [e["errorId"] for e in errors if e["errorId"] != "in-incognito"] == []
    page.locator("#offline-link").click()
    expect(page.locator("#offline-keep")).to_be_visible(timeout=LOAD_MS)
    assert engine_requests == [], "the first visit fetched none of the engine"
    screenshot(page, "offline-lobby-online-laptop")
    assert axe_findings(page) == []
    page.evaluate(WATCH_PROGRESS)
    page.locator("#offline-keep").click()
    expect(page.locator("#offline-kept")).to_be_visible(timeout=LOAD_MS)
    total = sum((PYODIDE_DIR / name).stat().st_size for name in PYODIDE_FILES) / 1e6
    progress: list[str] = page.evaluate("window.progressTexts")
    assert progress, "the download's progress was shown"
    assert progress[-1] == f"Downloading the game for offline play: {total:.1f} of {total:.1f} MB", progress
    assert {url.rsplit("/", 1)[1] for url in engine_requests} == set(PYODIDE_FILES)

    own_server.stop()
    context.set_offline(True)
    page.reload()
    expect(page.locator(".offline-notice")).to_be_visible()
    expect(page.locator("#offline-play")).to_be_visible(timeout=LOAD_MS)
    screenshot(page, "offline-lobby-laptop")
    assert axe_findings(page) == []
    page.select_option("#offline-level", "expert")
    page.locator("#offline-play").click()
    expect(page.locator(PLAYABLE).first).to_be_visible(timeout=60_000)
    page.locator(PLAYABLE).first.click()
    expect(page.locator(".offline-log")).to_contain_text("You played")
    wait_for_my_turn_or_the_end(page)
    before = hand(page)
    screenshot(page, "offline-table-laptop")
    assert axe_findings(page) == []
    page.reload()
    expect(page.locator(PLAYABLE).first).to_be_visible(timeout=LOAD_MS)
    assert hand(page) == before, "the game resumed where it was"

    page.set_viewport_size(PHONE)
    screenshot(page, "offline-table-phone")
    reloaded_mid_game = False
    while not page.locator("#offline-download").is_visible():
        wait_for_my_turn_or_the_end(page)
        if page.locator("#offline-next").is_visible():
            page.locator("#offline-next").click()
            if not reloaded_mid_game:
                page.reload()
                reloaded_mid_game = True
            continue
        if page.locator(PLAYABLE).count():
            page.locator(PLAYABLE).first.click()
    assert reloaded_mid_game
    # The online table's drawing and motion (table-scores.js, table-centre.js, effects.js; fades
    # here, the context asking for reduced motion), since the last reload: plays flew to the
    # pile, captures swept it, with their sounds, and the match's end was celebrated.
    expect(page.locator(".scoreboard .side .captured-count")).to_have_count(2)
    expect(page.locator(".opponents [data-seat='1'] .captured-count")).to_be_visible()
    motions = {motion["name"] for motion in page.evaluate("window.kseriEffects.motions")}
    sounds = page.evaluate("window.kseriEffects.sounds")
    played = {sound["name"] for sound in sounds if sound["status"] == "played"}
    assert {"fly", "sweep"} <= motions and motions & {"celebrate-win", "celebrate-match-end"}, motions
    assert {"play", "capture"} <= played and played & {"win", "matchEnd"}, played
    expect(page.locator(".celebration")).to_have_count(0)
    screenshot(page, "offline-match-over-phone")
    with page.expect_download() as download:
        page.locator("#offline-download").click()
    record_path = tmp_path / "offline.json"
    download.value.save_as(record_path)
    record = json.loads(record_path.read_text())
    assert record["complete"] and record["names"][0] == "You"
    for command in ("verify", "replay"):
        done = subprocess.run([sys.executable, "-m", "kseri", command, str(record_path)],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr

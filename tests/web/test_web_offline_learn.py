"""The tutorial and the rules help offline (docs/web.md, "Installable and offline"): after one
visit online, with the server gone and the browser offline, the offline lobby opens "Learn to
play", a lesson is completed with the lessons the service worker kept (the very ones
``/api/learn`` serves), and the rules help opens; none of it needs the offline engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_helpers import PHONE, SIZES, ContextFactory, PageErrors, axe_findings, screenshot
from playwright.sync_api import Page, expect
from serverkit import Server

LOAD_MS = 120_000


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    """A server of this test's own, to stop once the page has been visited."""
    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'kseri.db'}", {"--bot-delay": "0.05"}).start()
    yield server
    server.stop()


def do_step_rightly(page: Page, step: dict[str, Any]) -> None:
    """The right card, count or answer of a step; then what happened is shown."""
    if step["kind"] == "play":
        page.click(f'.learn-card[data-card="{step["card"]}"]')
    elif step["kind"] == "count":
        page.fill("#learn-count", str(step["answer"]))
        page.click("#learn-check")
    else:
        page.click(f'.learn-option[data-option="{step["answer"]}"]')
    expect(page.locator(".learn-outcome .learn-done")).to_have_text(step["done"])


def test_the_tutorial_and_the_rules_help_offline(own_server: Server, new_context: ContextFactory,
                                                 page_errors: PageErrors) -> None:
    tutorial: dict[str, Any] = httpx.get(f"{own_server.http}/api/learn/en").json()
    lesson = tutorial["lessons"][0]
    context = new_context(viewport=SIZES["laptop"], service_workers="allow")
    page = page_errors.watch(context.new_page())
    page.goto(f"{own_server.http}/")
    expect(page.locator("#offline-link")).to_be_visible()
    page.wait_for_function("() => navigator.serviceWorker.controller?.state === 'activated'",
                           timeout=LOAD_MS)
    page.wait_for_function("async () => !!(await caches.match('/api/learn/en'))", timeout=LOAD_MS)

    own_server.stop()
    context.set_offline(True)
    page.reload()
    expect(page.locator(".offline-notice")).to_be_visible(timeout=LOAD_MS)
    expect(page.locator("#offline-learn")).to_be_visible(timeout=LOAD_MS)
    expect(page.locator(".offline-keep")).to_contain_text("not on this device yet")
    screenshot(page, "offline-lobby-no-engine-laptop")
    assert axe_findings(page) == []
    page.locator("#offline-learn").click()
    expect(page.locator(".lesson-item")).to_have_count(len(tutorial["lessons"]), timeout=LOAD_MS)
    page.click(f"#lesson-{lesson['id']}")
    for number, step in enumerate(lesson["steps"]):
        expect(page.locator(".learn-lesson")).to_have_attribute("data-step", str(number))
        if number == 1:
            screenshot(page, "offline-learn-laptop")
            assert axe_findings(page) == []
        do_step_rightly(page, step)
        if number < len(lesson["steps"]) - 1:
            page.click("#learn-next")
    expect(page.locator(".learn-finished").first).to_contain_text(lesson["title"])
    page.set_viewport_size(PHONE)
    screenshot(page, "offline-learn-done-phone")
    page.click("#all-lessons")
    expect(page.locator(f"#lesson-{lesson['id']} .lesson-done")).to_be_visible()

    page.goto(f"{own_server.http}/")
    expect(page.locator("#offline-rules")).to_be_visible(timeout=LOAD_MS)
    screenshot(page, "offline-lobby-no-engine-phone")
    page.locator("#offline-rules").click()
    expect(page.locator("#rules-dialog")).to_be_visible()
    screenshot(page, "offline-rules-phone")
    assert axe_findings(page) == []
    page.locator("#rules-close").click()
    expect(page.locator("#rules-dialog")).to_have_count(0)
    assert page_errors.errors == []

"""Fixtures for the browser tests: the real server on a loopback port and Debian's Chromium
driven by Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser_helpers import DESKTOP, ROOT, ContextFactory, PageErrors
from playwright.sync_api import Browser, BrowserContext, Playwright, expect, sync_playwright
from serverkit import START_TIMEOUT

# What the page shows after the server has thought (a hint: the master's search in a worker
# process) comes late on a loaded machine: every assertion waits up to 30 s, not Playwright's 5.
expect.set_options(timeout=30_000)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test here as a browser test."""
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``kseri serve`` as a subprocess on a free loopback port, with fast bots; its base URL."""
    folder = tmp_path_factory.mktemp("server")
    port = _free_port()
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "kseri", "serve", "--port", str(port),
             "--db", f"sqlite+aiosqlite:///{folder}/db.sqlite3", "--bot-delay", "0.05",
             "--ready-timeout", "10", "--limits", "tables_per_minute=6000,tables_burst=1000",
             "--puzzle-cuts", "0"],  # the puzzles' tests are set the shipped puzzles only
            env=os.environ, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"kseri serve exited with {process.returncode}: {log_path.read_text()}")
            try:
                if httpx.get(f"{url}/api/rules", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"kseri serve did not answer in {START_TIMEOUT:g} s: {log_path.read_text()}")
            time.sleep(0.1)
        yield url
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's Chromium "
                    "(apt-get install chromium)")
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
    yield chromium
    chromium.close()


@pytest.fixture
def page_errors() -> Iterator[PageErrors]:
    errors = PageErrors()
    yield errors
    assert errors.errors == [], f"JavaScript errors on the page: {errors.errors}"


@pytest.fixture
def new_context(browser: Browser) -> Iterator[ContextFactory]:
    """A factory of browser contexts (each a separate person, with their own storage)."""
    contexts: list[BrowserContext] = []

    def make(viewport: dict[str, int] = DESKTOP, **options: object) -> BrowserContext:
        options.setdefault("reduced_motion", "reduce")
        # No service worker unless a test asks for one (test_web_offline.py): it would fetch the
        # offline engine's 12 MB in the background of every other test's first page.
        options.setdefault("service_workers", "block")
        options.setdefault("locale", "en-GB")
        context = browser.new_context(viewport=viewport, **options)  # type: ignore[arg-type]
        context.set_default_timeout(15000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()

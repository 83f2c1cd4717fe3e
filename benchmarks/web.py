"""How fast the web page gets a person playing: from opening the address to a usable lobby,
and from tapping *Play now* to a hand that can be played, in Debian's Chromium against a real
server on loopback (fresh browser context each time, so nothing is cached). The baseline is
the server's own answer time for the lobby page and its rules list.

Run: ``PYTHONPATH=src python benchmarks/web.py [--repeats 7]``. Prints medians in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import httpx
from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [sys.executable, "-m", "kseri", "serve", "--port", str(port),
             "--db", f"sqlite+aiosqlite:///{folder}/db.sqlite3"],
            env=os.environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    httpx.get(f"{url}/api/rules", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            http_ms, lobby_ms, play_ms = [], [], []
            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    httpx.get(f"{url}/")
                    httpx.get(f"{url}/api/rules")
                    http_ms.append((time.perf_counter() - start) * 1000)
                    context = browser.new_context(viewport={"width": 390, "height": 844})
                    page = context.new_page()
                    start = time.perf_counter()
                    page.goto(f"{url}/")
                    page.wait_for_selector("#quick-play:not([disabled])")
                    lobby_ms.append((time.perf_counter() - start) * 1000)
                    start = time.perf_counter()
                    page.click("#quick-play")
                    page.wait_for_selector(".hand .card-button")
                    play_ms.append((time.perf_counter() - start) * 1000)
                    context.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    print(f"web page, median of {args.repeats} (ms)")
    print(f"  baseline: GET / and /api/rules      {statistics.median(http_ms):8.1f}")
    print(f"  open the address to a usable lobby  {statistics.median(lobby_ms):8.1f}")
    print(f"  Play now to a playable hand         {statistics.median(play_ms):8.1f}")


if __name__ == "__main__":
    main()

"""Offline play against the computer (``kseri.offline`` under Pyodide in Chromium): what the first
offline start costs and how quickly the page plays.

Printed figures:

- the bytes of the first visit (what the service worker keeps: the app shell with the kseri
  core, and the tutorial's lessons in one language) and of the first offline start (the engine,
  Pyodide's files, fetched only when wanted), as the server sends them to a browser that accepts
  gzip, and uncompressed;
- the time to the first playable card, from the navigation's start: on the first visit (online,
  nothing kept), offline cold (the server gone, the first start from the kept files) and offline
  cached (the next reload; Chromium then has the compiled WebAssembly as well); medians of runs,
  each on a fresh server and browser context;
- the bot's time per move at each offline level, in the browser (Pyodide) and beside it in
  CPython (the server's), median and p99.

Usage: ``PYTHONPATH=src python benchmarks/offline.py [--runs 3] [--matches 5]`` (needs Debian's
Chromium, and Pyodide in build/pyodide: scripts/test installs it).
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, sync_playwright

from kseri.offline import LEVELS

PLAYABLE = ".offline-hand .card-button[aria-disabled=false]"
ENGINE = "await (await import('/static/js/offline-engine.js')).loadEngine()"
BOT_TIMES = """
import json, time
from kseri.offline import OfflineTable

def bot_times(level, matches):
    times = []
    began = time.perf_counter()
    for seed in range(matches):
        table = OfflineTable.new("greek", level, seed, people=0)
        while not table.is_over():
            if table.match.turn is None:
                table.next_round()
                continue
            start = time.perf_counter()
            table.bot_play()
            times.append(time.perf_counter() - start)
    return json.dumps({"seconds": time.perf_counter() - began, "times": times})
"""
"""Run in the page and in CPython alike: the seconds of ``matches`` Greek matches between bots
and each bot play's (the browser's clock is coarse, 0.1 ms: the mean per move comes from the
whole run)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``kseri serve`` on a free loopback port; the process and its address."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "kseri", "serve", "--port", str(port), "--db",
                                f"sqlite+aiosqlite:///{folder}/kseri-{port}.db"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180  # a loaded machine
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("kseri serve did not start within 180 s")


def sent_bytes(url: str) -> tuple[int, int]:
    """The bytes the server sends for ``url`` to a browser accepting gzip, and uncompressed."""
    with httpx.stream("GET", url, headers={"Accept-Encoding": "gzip"}, timeout=60) as answer:
        answer.raise_for_status()
        sent = sum(len(chunk) for chunk in answer.iter_raw())
    return sent, len(httpx.get(url, headers={"Accept-Encoding": "identity"}, timeout=60).content)


def download_bytes(url: str) -> dict[str, tuple[int, int]]:
    """The bytes (sent, uncompressed) of the first visit (the service worker's shell and the
    lessons in English) and of the first offline start (the engine's files)."""
    script = httpx.get(f"{url}/sw.js", timeout=10).text
    lists = {name: re.search(rf"const {name} = (\[.*\]);", script) for name in ("SHELL", "ENGINE")}
    paths = {name: json.loads(listed.group(1)) if listed else [] for name, listed in lists.items()}
    totals: dict[str, tuple[int, int]] = {}
    parts = (("first visit", [*paths["SHELL"], "/api/learn/en"]), ("first offline start", paths["ENGINE"]))
    for part, listed in parts:
        sizes = [sent_bytes(url + path) for path in listed]
        totals[part] = (sum(sent for sent, _ in sizes), sum(whole for _, whole in sizes))
    return totals


def time_to_card(browser: Browser, folder: Path) -> tuple[float, float, float]:
    """Seconds from the navigation's start to the first playable card: first visit online,
    offline cold, offline cached."""
    process, url = start_server(folder)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(180_000)
        page.goto(f"{url}/offline")
        page.locator("#offline-play").click()  # fetches the engine (kept), then deals
        first = page.wait_for_function(f"() => document.querySelector('{PLAYABLE}') && performance.now()",
                                       timeout=180_000).json_value() / 1000
        page.wait_for_function("() => navigator.serviceWorker.controller?.state === 'activated'",
                               timeout=180_000)
        process.terminate()
        process.wait(10)
        context.set_offline(True)
        offline = []
        for _ in range(2):
            page.reload()
            offline.append(page.wait_for_function(
                f"() => document.querySelector('{PLAYABLE}') && performance.now()",
                timeout=180_000).json_value() / 1000)
        return first, offline[0], offline[1]
    finally:
        context.close()
        if process.poll() is None:
            process.terminate()
            process.wait(10)


def bot_times_in_browser(browser: Browser, folder: Path, matches: int) -> dict[str, dict[str, Any]]:
    process, url = start_server(folder)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/offline")
        page.locator("#offline-play").wait_for(timeout=180_000)
        page.evaluate(f"async (code) => ({ENGINE}).runPython(code)", BOT_TIMES)
        call = f"async ([level, matches]) => ({ENGINE}).globals.get('bot_times')(level, matches)"
        return {level: json.loads(page.evaluate(call, [level, matches])) for level in LEVELS}
    finally:
        context.close()
        process.terminate()
        process.wait(10)


def p99(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh server and browser context per run")
    parser.add_argument("--matches", type=int, default=5, help="Greek matches per level for the bot's time")
    args = parser.parse_args()
    namespace: dict[str, object] = {}
    exec(BOT_TIMES, namespace)  # the very code the page runs, in CPython
    with tempfile.TemporaryDirectory() as folder_name, sync_playwright() as driver:
        folder = Path(folder_name)
        process, url = start_server(folder)
        try:
            downloads = download_bytes(url)
        finally:
            process.terminate()
            process.wait(10)
        for part, (sent, whole) in downloads.items():
            print(f"bytes of the {part}: {sent / 1e6:.2f} MB sent ({whole / 1e6:.2f} MB uncompressed)")
        browser = driver.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])
        runs = [time_to_card(browser, folder) for _ in range(args.runs)]
        labels = ("first visit, online (nothing kept)", "offline, cold (first start from the kept files)",
                  "offline, cached (next reload)")
        for index, label in enumerate(labels):
            values = [run[index] for run in runs]
            print(f"time to the first playable card, {label}: median {statistics.median(values):.2f} s "
                  f"(runs: {', '.join(f'{v:.2f}' for v in values)})")
        in_browser = bot_times_in_browser(browser, folder, args.matches)
        browser.close()
    bot_times = namespace["bot_times"]
    assert callable(bot_times)
    print(f"bot's time per move, Greek, {args.matches} matches per level: browser (Pyodide) | CPython")
    for level in LEVELS:
        here, there = json.loads(bot_times(level, args.matches)), in_browser[level]
        mean_there, mean_here = (run["seconds"] / len(run["times"]) * 1e3 for run in (there, here))
        print(f"  {level:7} browser mean {mean_there:.3f} ms, p99 {p99(there['times']) * 1e3:.1f} ms"
              f" | CPython mean {mean_here:.3f} ms, p99 {p99(here['times']) * 1e3:.3f} ms"
              f" | ratio of means {mean_there / mean_here:.1f}x ({len(there['times'])} moves)")


if __name__ == "__main__":
    main()

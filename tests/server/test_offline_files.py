"""What the installable app is served (server/api/offline.py): the manifest, the service worker
with the list of what it keeps, every kept file at its address, and clear refusals."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable

import httpx
from serverkit import Server

from kseri.offline import LEVELS, core_archive, presets
from kseri.server.api.offline import PYODIDE_DIR, PYODIDE_FILES


def test_the_manifest_names_the_app_and_its_icons(start_server: Callable[..., Server],
                                                  sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    answer = httpx.get(server.http + "/manifest.webmanifest", timeout=10)
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["short_name"] == "Kseri" and manifest["display"] == "standalone"
    assert manifest["start_url"] == "/" and manifest["theme_color"] == "#0d5c3a"
    icons = {(icon["sizes"], icon["purpose"]): icon["src"] for icon in manifest["icons"]}
    assert set(icons) == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for (sizes, _), src in icons.items():
        png = httpx.get(server.http + src, timeout=10).content
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert f"{width}x{height}" == sizes


def test_the_service_worker_keeps_the_shell_and_the_engine(start_server: Callable[..., Server],
                                                         sqlite_url: str) -> None:
    assert all((PYODIDE_DIR / name).is_file() for name in PYODIDE_FILES), \
        f"Pyodide is missing from {PYODIDE_DIR}: scripts/test installs it"
    server = start_server(sqlite_url)
    answer = httpx.get(server.http + "/sw.js", timeout=10)
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"
    assert re.search(r'const CACHE = "kseri-shell-[0-9a-f]{16}";', answer.text), answer.text[:800]
    assert re.search(r'const ENGINE_CACHE = "kseri-engine-[0-9a-f]{16}";', answer.text), answer.text[:800]
    shell, engine = (re.search(rf"const {name} = (\[.*\]);", answer.text) for name in ("SHELL", "ENGINE"))
    assert shell and engine, answer.text[:800]
    precache = json.loads(shell.group(1)) + json.loads(engine.group(1))
    for needed in ("/", "/offline", "/manifest.webmanifest", "/static/js/app.js", "/static/js/offline.js",
                   "/static/js/offline-engine.js", "/static/i18n/el.json", "/static/icons/icon-192.png",
                   "/offline/kseri-core.zip"):
        assert needed in json.loads(shell.group(1)), needed
    assert json.loads(engine.group(1)) == [f"/offline/pyodide/{name}" for name in PYODIDE_FILES]
    for path in precache:  # the worker's install fails if any one of them does
        assert httpx.get(server.http + path, timeout=30).status_code == 200, path
    assert httpx.get(server.http + "/offline/kseri-core.zip", timeout=10).content == core_archive()
    csp = httpx.get(server.http + "/offline", timeout=10).headers["content-security-policy"]
    assert "script-src 'self' 'wasm-unsafe-eval';" in csp, "WebAssembly compiles, JavaScript from text not"


def test_only_pyodide_files_are_served(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    answer = httpx.get(server.http + "/offline/pyodide/package.json", timeout=10)
    assert answer.status_code == 404
    message = answer.json()["error"]["message"]
    assert message.startswith("no Pyodide file 'package.json'; the files are: pyodide.mjs")


def test_the_engine_is_served_compressed_and_the_lobby_gets_what_it_needs_first(
        start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    wasm = (PYODIDE_DIR / "pyodide.asm.wasm").read_bytes()
    with httpx.stream("GET", server.http + "/offline/pyodide/pyodide.asm.wasm",
                      headers={"Accept-Encoding": "gzip"}, timeout=60) as answer:
        raw = b"".join(answer.iter_raw())
        assert answer.headers["content-encoding"] == "gzip" and answer.headers["vary"] == "Accept-Encoding"
        assert answer.headers["content-type"] == "application/wasm"
    assert len(raw) < len(wasm) / 2 and gzip.decompress(raw) == wasm
    plain = httpx.get(server.http + "/offline/pyodide/pyodide.asm.wasm",
                      headers={"Accept-Encoding": "identity"}, timeout=60)
    assert "content-encoding" not in plain.headers and plain.content == wasm
    info = httpx.get(server.http + "/offline/offline.json", timeout=10).json()
    assert info["presets"] == json.loads(presets()) and info["levels"] == list(LEVELS)
    script = httpx.get(server.http + "/sw.js", timeout=10).text
    assert f'const ENGINE_CACHE = "{info["engine"]["cache"]}";' in script
    sizes = {f"/offline/pyodide/{name}": (PYODIDE_DIR / name).stat().st_size for name in PYODIDE_FILES}
    assert {file["url"]: file["bytes"] for file in info["engine"]["files"]} == sizes
    shell = re.search(r"const SHELL = (\[.*\]);", script)
    assert shell and "/offline/offline.json" in json.loads(shell.group(1))

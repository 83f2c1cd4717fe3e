"""The installable app and its offline play (docs/web.md, "Installable and offline"): the web app
manifest, the service worker (with the list of what it keeps for offline use and a version that
changes with any of it), Pyodide's files from the npm registry and the archive of the engine's
standard-library core (:func:`kseri.offline.core_archive`) that the browser runs offline."""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Final

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from kseri.offline import core_archive
from kseri.server.api.pages import WEB_DIR
from kseri.server.errors import ApiError

PYODIDE_DIR: Final = Path(os.environ.get(
    "KSERI_PYODIDE_DIR", WEB_DIR.parents[2] / "build" / "pyodide" / "node_modules" / "pyodide"))
"""Where ``npm install --prefix build/pyodide pyodide@0.29`` put Pyodide (scripts/test does;
``KSERI_PYODIDE_DIR`` points elsewhere)."""

PYODIDE_FILES: Final = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                        "pyodide-lock.json")
"""The files of Pyodide the browser fetches to start Python (no package beyond its standard library)."""

OFFLINE_PAGES: Final = ("/", "/offline")
"""The page's addresses the service worker keeps (any other address offline gets the first)."""

router = APIRouter(include_in_schema=False)


def shell_files() -> list[str]:
    """The addresses of the page's own files (the app shell) under ``/static``."""
    at_root = {"index.html", "sw.js", "manifest.webmanifest"}  # served at the page's addresses and the root
    files = sorted(path for path in WEB_DIR.rglob("*") if path.is_file() and path.name not in at_root)
    return [f"/static/{path.relative_to(WEB_DIR).as_posix()}" for path in files]


def pyodide_files() -> list[str]:
    """The addresses of Pyodide's files (none where Pyodide is not installed)."""
    if not all((PYODIDE_DIR / name).is_file() for name in PYODIDE_FILES):
        return []
    return [f"/offline/pyodide/{name}" for name in PYODIDE_FILES]


@cache
def _archive() -> bytes:
    return core_archive()


@cache
def service_worker() -> str:
    """``web/sw.js`` with its two lists of files to keep, each with a version hashing their
    contents: the page and the kseri core (changed by any release), and Pyodide (12 MB, changed
    only by a new Pyodide, so a release of the page does not fetch it again)."""
    shell = [*OFFLINE_PAGES, "/manifest.webmanifest", *shell_files(), "/offline/kseri-core.zip"]
    shell_digest = hashlib.sha256(_archive())
    for path in [WEB_DIR / "index.html", WEB_DIR / "sw.js", *sorted(WEB_DIR.rglob("*"))]:
        if path.is_file():
            shell_digest.update(path.read_bytes())
    engine = pyodide_files()
    engine_digest = hashlib.sha256()
    for name in PYODIDE_FILES if engine else ():
        stat = (PYODIDE_DIR / name).stat()
        engine_digest.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    script = (WEB_DIR / "sw.js").read_text()
    return (script.replace("__SHELL_VERSION__", shell_digest.hexdigest()[:16])
            .replace('["__SHELL__"]', json.dumps(shell))
            .replace("__ENGINE_VERSION__", engine_digest.hexdigest()[:16])
            .replace('["__ENGINE__"]', json.dumps(engine)))


@router.get("/sw.js")
async def service_worker_script() -> Response:
    """The service worker, at the root so that it controls every page address."""
    return Response(service_worker(), media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/manifest.webmanifest")
async def manifest() -> FileResponse:
    """The web app manifest."""
    return FileResponse(WEB_DIR / "manifest.webmanifest", media_type="application/manifest+json")


@router.get("/offline/kseri-core.zip")
async def kseri_core() -> Response:
    """The engine's standard-library core the browser runs offline (``kseri.offline``)."""
    return Response(_archive(), media_type="application/zip")


@router.get("/offline/pyodide/{name}")
async def pyodide_file(name: str) -> FileResponse:
    """One of Pyodide's files (from the npm registry, into ``build/pyodide``)."""
    if name not in PYODIDE_FILES:
        raise ApiError(404, "not-found",
                       f"no Pyodide file {name!r}; the files are: {', '.join(PYODIDE_FILES)}")
    path = PYODIDE_DIR / name
    if not path.is_file():
        raise ApiError(404, "offline-not-installed",
                       f"Pyodide is not installed at {PYODIDE_DIR}: "
                       "npm install --prefix build/pyodide pyodide@0.29")
    media = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
             ".json": "application/json", ".zip": "application/zip"}[path.suffix]
    return FileResponse(path, media_type=media)

"""The installable app and its offline play (docs/web.md, "Installable and offline"): the web app
manifest, the service worker (with the list of what it keeps for offline use and a version that
changes with any of it), what the offline lobby needs before the engine (:func:`offline_info`),
Pyodide's files from the npm registry (gzip-compressed for a browser that accepts it) and the
archive of the engine's standard-library core (:func:`kseri.offline.core_archive`) that the
browser runs offline."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from kseri.offline import LEVELS, core_archive, presets
from kseri.server.api.pages import WEB_DIR
from kseri.server.errors import ApiError
from kseri.server.ratings import BOT_RATINGS

PYODIDE_DIR: Final = Path(os.environ.get(
    "KSERI_PYODIDE_DIR", WEB_DIR.parents[2] / "build" / "pyodide" / "node_modules" / "pyodide"))
"""Where ``npm install --prefix build/pyodide pyodide@0.29`` put Pyodide (scripts/test does;
``KSERI_PYODIDE_DIR`` points elsewhere)."""

PYODIDE_FILES: Final = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                        "pyodide-lock.json")
"""The files of Pyodide the browser fetches to start Python (no package beyond its standard library)."""

PYODIDE_MEDIA: Final = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                        ".json": "application/json", ".zip": "application/zip"}
"""The media type of each of Pyodide's files, by suffix."""

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
def engine_cache() -> str:
    """The name of the browser's cache holding the engine (Pyodide's files), with a version that
    changes only with a new Pyodide, so that a release of the page does not fetch its 12 MB again."""
    digest = hashlib.sha256()
    for name in PYODIDE_FILES if pyodide_files() else ():
        stat = (PYODIDE_DIR / name).stat()
        digest.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return f"kseri-engine-{digest.hexdigest()[:16]}"


@cache
def offline_info() -> str:
    """What the offline lobby needs before the engine starts (JSON): each preset's options, the
    levels and each one's rating per family (:data:`~kseri.server.ratings.BOT_RATINGS`), and the
    engine the page keeps when asked (its cache's name and each file's address and size,
    uncompressed, for the download's progress)."""
    files = [{"url": url, "bytes": (PYODIDE_DIR / url.rsplit("/", 1)[1]).stat().st_size}
             for url in pyodide_files()]
    return json.dumps({"presets": json.loads(presets()), "levels": list(LEVELS), "ratings": BOT_RATINGS,
                       "engine": {"cache": engine_cache(), "files": files}})


@cache
def service_worker() -> str:
    """``web/sw.js`` with the list of the app shell's files to keep on its first visit (the page,
    the kseri core and :func:`offline_info`: well under a megabyte), with a version hashing their
    contents; and the engine's files (Pyodide's), which it serves from the engine's cache
    (:func:`engine_cache`), filled by the page only when the engine is wanted."""
    shell = [*OFFLINE_PAGES, "/manifest.webmanifest", *shell_files(), "/offline/kseri-core.zip",
             "/offline/offline.json"]
    shell_digest = hashlib.sha256(_archive())
    shell_digest.update(offline_info().encode())
    for path in [WEB_DIR / "index.html", WEB_DIR / "sw.js", *sorted(WEB_DIR.rglob("*"))]:
        if path.is_file():
            shell_digest.update(path.read_bytes())
    script = (WEB_DIR / "sw.js").read_text()
    return (script.replace("__SHELL_VERSION__", shell_digest.hexdigest()[:16])
            .replace('["__SHELL__"]', json.dumps(shell))
            .replace("__ENGINE_CACHE__", engine_cache())
            .replace('["__ENGINE__"]', json.dumps(pyodide_files())))


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


@router.get("/offline/offline.json")
async def offline_lobby() -> Response:
    """What the offline lobby needs before the engine (:func:`offline_info`)."""
    return Response(offline_info(), media_type="application/json")


@cache
def _gzipped(name: str) -> bytes:
    # once per file and process: the engine's 12.3 MB come to 5.5 MB
    return gzip.compress((PYODIDE_DIR / name).read_bytes(), compresslevel=9, mtime=0)


@router.get("/offline/pyodide/{name}")
async def pyodide_file(name: str, request: Request) -> Response:
    """One of Pyodide's files (from the npm registry, into ``build/pyodide``), gzip-compressed
    where the browser accepts it."""
    if name not in PYODIDE_FILES:
        raise ApiError(404, "not-found",
                       f"no Pyodide file {name!r}; the files are: {', '.join(PYODIDE_FILES)}")
    path = PYODIDE_DIR / name
    if not path.is_file():
        raise ApiError(404, "offline-not-installed",
                       f"Pyodide is not installed at {PYODIDE_DIR}: "
                       "npm install --prefix build/pyodide pyodide@0.29")
    media = PYODIDE_MEDIA[path.suffix]
    accepted = {part.split(";")[0].strip() for part in request.headers.get("accept-encoding", "").split(",")}
    if "gzip" not in accepted:
        return FileResponse(path, media_type=media, headers={"Vary": "Accept-Encoding"})
    return Response(await asyncio.to_thread(_gzipped, name), media_type=media,
                    headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})

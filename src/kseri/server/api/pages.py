"""The web page: ``index.html`` at every address the page itself answers (``/``, an invite
``/t/{id}``, ``/account``, ``/p/{username}``, ``/leaderboard``, ``/puzzles``, ``/trainer``, ``/moderation``,
``/offline``, ``/tournaments``), its assets under ``/static``."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

WEB_DIR = Path(__file__).resolve().parent.parent.parent / "web"
"""Where the web page's files are (index.html and its assets)."""

PLACEHOLDER_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>kseri</title></head>
<body><h1>kseri server</h1><p>The web client is not installed; the server's API is at
<a href="/docs">/docs</a>.</p></body></html>"""

PAGES = ("/", "/t/{table_id}", "/daily", "/daily/{family}", "/daily/{family}/{day}",
         "/daily/versus/{first}/{second}", "/challenges", "/challenges/{challenge_id}", "/account",
         "/p/{username}", "/leaderboard", "/leaderboard/{family}", "/puzzles", "/trainer", "/moderation",
         "/offline", "/tournaments", "/tournaments/{tournament_id}")
"""The page's own addresses (docs/players.md)."""

router = APIRouter(include_in_schema=False)


async def index() -> HTMLResponse | FileResponse:
    """The web page (or a placeholder where it is not installed)."""
    if (WEB_DIR / "index.html").is_file():
        return FileResponse(WEB_DIR / "index.html")
    return HTMLResponse(PLACEHOLDER_PAGE)


for page in PAGES:
    router.add_api_route(page, index, response_model=None)


def mount_assets(app: FastAPI) -> None:
    """Serve the page's assets under ``/static`` (where the page is installed)."""
    if (WEB_DIR / "index.html").is_file():
        app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

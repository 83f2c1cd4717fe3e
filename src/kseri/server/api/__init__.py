"""The server's HTTP API, a router per area; :func:`~kseri.server.app.create_app` includes
each of :data:`ROUTERS` (a new area adds its router there, in one line)."""

from __future__ import annotations

from fastapi import APIRouter

from kseri.server.api import (
    challenges,
    daily,
    learn,
    moderation,
    odds,
    offline,
    ops,
    pages,
    players,
    puzzles,
    tables,
    tournaments,
    trainer,
)

ROUTERS: list[APIRouter] = [
    tables.router,  # tables, seats, the lobby, records, the play WebSocket
    players.router,  # accounts, pairing, profiles, leaderboards, analyses
    learn.router,  # the tutorial
    puzzles.router,  # puzzles, puzzle ratings, mistakes made puzzles
    odds.router,  # win odds in a finished casual game's replay
    trainer.router,  # the memory trainer's drill, a casual table's quiz and counting aid
    daily.router,  # the daily deal (server/daily.py)
    challenges.router,  # duplicate challenges (server/challenges.py)
    moderation.router,  # blocks, reports, the moderators' page (server/moderation.py, server/refunds.py)
    tournaments.router,  # tournaments for people (server/tournaments.py)
    ops.router,  # health, readiness, metrics
    offline.router,  # the installable app: manifest, service worker, the offline engine's files
    pages.router,  # the web page's addresses
]
"""Every area's routes, in the order they are matched."""

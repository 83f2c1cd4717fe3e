"""Accounts and players: sign-up and sessions (``server/accounts.py``), quick pairing
(``server/pairing.py``), profiles, leaderboards and analyses (``server/players.py``), each
area's routes where its work is done, gathered here."""

from __future__ import annotations

from fastapi import APIRouter

from kseri.server import accounts, pairing, players

router = APIRouter()
router.include_router(accounts.router)
router.include_router(pairing.router)
router.include_router(players.router)

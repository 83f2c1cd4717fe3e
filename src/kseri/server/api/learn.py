"""``GET /api/learn/{lang}``: the tutorial's lessons, played through the engine, in one language."""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import APIRouter, HTTPException

from kseri.learn import LANGUAGES, build_tutorial

router = APIRouter()


@cache
def _tutorial(lang: str) -> dict[str, Any]:
    return build_tutorial(lang)


@router.get("/api/learn/{lang}", responses={404: {"description": "a language the tutorial does not speak"}})
async def learn(lang: str) -> dict[str, Any]:
    """Every lesson's script (the table before and after each step, the texts, the answers)."""
    if lang not in LANGUAGES:
        raise HTTPException(404, f"no tutorial in {lang!r}: choose one of {', '.join(LANGUAGES)}")
    return _tutorial(lang)

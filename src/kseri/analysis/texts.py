"""The analysis's words (verdicts, puzzle themes, the terminal puzzle), one JSON file per
language in ``text/``, in the tutorial's languages (:data:`kseri.learn.text.LANGUAGES`).

>>> texts("el")["theme.kseri"]
'Ξερή'
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from kseri.learn.text import LANGUAGES, LanguageError


@cache
def texts(lang: str) -> dict[str, str]:
    """Every text of the analysis in ``lang`` (an English text stands in for a missing key)."""
    if lang not in LANGUAGES:
        raise LanguageError(f"no analysis texts in {lang!r}: choose one of {', '.join(LANGUAGES)}")
    folder = resources.files("kseri.analysis") / "text"
    english: dict[str, str] = json.loads((folder / "en.json").read_text(encoding="utf-8"))
    own: dict[str, str] = json.loads((folder / f"{lang}.json").read_text(encoding="utf-8"))
    return english | own


__all__ = ["LANGUAGES", "LanguageError", "texts"]

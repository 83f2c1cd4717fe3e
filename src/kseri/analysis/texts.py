"""The analysis's words (verdicts, puzzle themes, the terminal puzzle), one JSON file per
language in ``text/``, in the tutorial's languages (:data:`kseri.learn.text.LANGUAGES`).

>>> texts("el")["theme.kseri"]
'Ξερή'
"""

from __future__ import annotations

from functools import cache

from kseri.learn.text import LANGUAGES, LanguageError, package_texts


@cache
def texts(lang: str) -> dict[str, str]:
    """Every text of the analysis in ``lang`` (an English text stands in for a missing key)."""
    return package_texts("kseri.analysis", lang, "analysis texts")


__all__ = ["LANGUAGES", "LanguageError", "texts"]

"""The tutorial's texts, one JSON file per language in ``text/`` (flat keys, like the web page's)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Final

LANGUAGES: Final = ("en", "el", "pt", "es", "fr", "tr")
"""The tutorial's languages: English, Greek, the guides' own (Portuguese, Spanish, French) and
Turkish (Pisti's home)."""


class LanguageError(ValueError):
    """A language the tutorial does not speak."""


@cache
def lesson_texts(lang: str) -> dict[str, str]:
    """Every text of the tutorial in ``lang`` (an English text stands in for a missing key)."""
    if lang not in LANGUAGES:
        raise LanguageError(f"no tutorial in {lang!r}: choose one of {', '.join(LANGUAGES)}")
    folder = resources.files("kseri.learn") / "text"
    english: dict[str, str] = json.loads((folder / "en.json").read_text(encoding="utf-8"))
    own: dict[str, str] = json.loads((folder / f"{lang}.json").read_text(encoding="utf-8"))
    return english | own

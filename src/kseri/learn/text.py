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
    """A language we have no texts in."""


def package_texts(package: str, lang: str, what: str) -> dict[str, str]:
    """The texts of ``package``'s ``text/`` folder in ``lang`` (an English text stands in for a
    missing key); ``what`` names them in the error for a language we do not speak."""
    if lang not in LANGUAGES:
        raise LanguageError(f"no {what} in {lang!r}: choose one of {', '.join(LANGUAGES)}")
    folder = resources.files(package) / "text"
    english: dict[str, str] = json.loads((folder / "en.json").read_text(encoding="utf-8"))
    own: dict[str, str] = json.loads((folder / f"{lang}.json").read_text(encoding="utf-8"))
    return english | own


@cache
def lesson_texts(lang: str) -> dict[str, str]:
    """Every text of the tutorial in ``lang`` (an English text stands in for a missing key)."""
    return package_texts("kseri.learn", lang, "tutorial")

"""Telling a translated text from one left in English (for the language tests of the page and
of the tutorial)."""

from __future__ import annotations

import re

SHARED_WORDS = {"kseri", "kseris", "pisti", "ξερή", "learn", "ok", "sha", "json", "https", "buchholz"}
"""Words every language writes alike: the game's names, the command ``kseri learn``, technical names,
Buchholz (a tie-break named after its inventor)."""

SAME_IN = {
    "fr": {"centre", "double", "options", "points", "bonus", "total", "score", "expert", "secret", "pause"},
    "es": {"total"},
    "pt": {"total"},
    "tr": set(),
    "el": set(),
}
"""Words a language writes exactly as English does (French "centre", "total", ...)."""


def left_in_english(lang: str, text: str, english: str) -> bool:
    """Whether ``text`` is the English text and has a word that ``lang`` would write otherwise."""
    if text != english:
        return False
    words = re.findall(r"[^\W\d_]{2,}", re.sub(r"\{\w+\}", "", text))
    same = SHARED_WORDS | SAME_IN.get(lang, set())
    return any(word.lower() not in same for word in words)

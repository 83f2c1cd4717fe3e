"""Every language of the page is complete and translated: no key missing, no text left in English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from language_check import left_in_english

from kseri.learn import LANGUAGES

I18N = Path(__file__).resolve().parents[2] / "src" / "kseri" / "web" / "i18n"


def _messages(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def test_the_page_and_the_tutorial_speak_the_same_languages() -> None:
    page = json.loads((I18N / "languages.json").read_text(encoding="utf-8"))
    assert list(page) == list(LANGUAGES)
    assert {path.stem for path in I18N.glob("*.json")} - {"languages"} == set(LANGUAGES)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_no_text_is_left_in_english(lang: str) -> None:
    english = _messages("en")
    own = _messages(lang)
    assert set(own) == set(english), f"missing {set(english) - set(own)}, extra {set(own) - set(english)}"
    untranslated = [key for key, text in own.items() if left_in_english(lang, text, english[key])]
    assert untranslated == []

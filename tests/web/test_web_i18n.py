"""Translations: every text key the page uses exists in every language; Greek from the browser."""

from __future__ import annotations

import json
import re
from pathlib import Path

from browser_helpers import DESKTOP, ContextFactory, PageErrors, open_lobby
from playwright.sync_api import expect

WEB = Path(__file__).resolve().parents[2] / "src" / "kseri" / "web"


def _messages(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def test_every_language_has_every_key() -> None:
    languages = json.loads((WEB / "i18n" / "languages.json").read_text(encoding="utf-8"))
    english = _messages("en")
    for lang in languages:
        keys = set(_messages(lang))
        assert keys == set(english), f"{lang}: missing {set(english) - keys}, extra {keys - set(english)}"
        for key, text in _messages(lang).items():
            assert set(re.findall(r"\{\w+\}", text)) == set(re.findall(r"\{\w+\}", english[key])), (lang, key)


def test_every_literal_key_in_the_code_is_translated() -> None:
    english = _messages("en")
    used: set[str] = set()
    for path in (WEB / "js").glob("*.js"):
        source = path.read_text(encoding="utf-8")
        used.update(re.findall(r"\bt\(\s*\"([\w.-]+)\"", source))
        used.update(f"{key}.other" for key in re.findall(r"\btn\(\s*\"([\w.-]+)\"", source))
    html = (WEB / "index.html").read_text(encoding="utf-8")
    used.update(re.findall(r'data-i18n(?:-label|-placeholder|-title)?="([\w.-]+)"', html))
    assert used - set(english) == set()


def test_greek_from_the_browser_and_switching(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP, locale="el-GR").new_page())
    open_lobby(page, server)
    expect(page.get_by_role("heading", name="Νέο παιχνίδι")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "el")
    page.select_option("#language-select", "en")
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    page.reload()
    expect(page.get_by_role("heading", name="New game")).to_be_visible()

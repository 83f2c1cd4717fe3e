"""Issue 19, newcomers 7 and 8: a wrong sign-in keeps the username and shows its error in the
form, and account errors are in the page's language (all six)."""

from __future__ import annotations

import json
from pathlib import Path

from browser_helpers import SIZES, ContextFactory, PageErrors, screenshot
from playwright.sync_api import expect

from kseri.server.accounts import PASSWORD_LENGTH

I18N = Path(__file__).resolve().parents[2] / "src" / "kseri" / "web" / "i18n"
LANGUAGES = ("en", "el", "pt", "es", "fr", "tr")


def test_a_wrong_sign_in_keeps_the_username_and_shows_the_error_at_the_form(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(SIZES["laptop"]).new_page())
    page.goto(f"{server}/account")
    page.fill("#signin-username", "Nobody42")
    page.fill("#signin-password", "not the password")
    page.click("#signin-submit")
    error = page.locator("#signin-form #account-error")
    expect(error).to_have_text("Wrong username or password.")
    expect(page.locator("#signin-username")).to_have_value("Nobody42")
    expect(page.locator("#signin-password")).to_be_focused()
    expect(page.locator("#signin-password")).to_have_attribute("aria-invalid", "true")
    box, form = error.bounding_box(), page.locator("#signin-form").bounding_box()
    assert box and form and form["y"] <= box["y"] <= form["y"] + form["height"]
    screenshot(page, "account-wrong-sign-in-laptop", full_page=False)


def test_account_errors_are_in_every_language(server: str, new_context: ContextFactory,
                                              page_errors: PageErrors) -> None:
    low, high = PASSWORD_LENGTH
    for lang in LANGUAGES:
        texts = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
        context = new_context(SIZES["phone"])
        context.add_init_script(f"localStorage.setItem('kseri.lang', '{lang}')")
        page = page_errors.watch(context.new_page())
        page.goto(f"{server}/account")
        page.fill("#signup-username", f"Short{lang}")
        page.fill("#signup-password", "x")
        page.click("#signup-submit")
        length = texts["accountError.bad-password.length"]
        expected = length.replace("{min}", str(low)).replace("{max}", str(high))
        expect(page.locator("#signup-form #account-error")).to_have_text(expected)
        expect(page.locator("#signup-username")).to_have_value(f"Short{lang}")
        page.fill("#signin-username", "Nobody42")
        page.fill("#signin-password", "not the password")
        page.click("#signin-submit")
        wrong = texts["accountError.bad-credentials"]
        expect(page.locator("#signin-form #account-error")).to_have_text(wrong)
        if lang == "el":
            screenshot(page, "account-error-greek-phone")
        context.close()

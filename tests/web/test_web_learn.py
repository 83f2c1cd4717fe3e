"""Learn to play in the browser: the whole tutorial driven to its end as a learner would, its
progress kept, in every language, on a phone too; screenshots in screenshots/learn-*.png."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_helpers import DESKTOP, PHONE, ContextFactory, PageErrors, open_lobby, screenshot
from playwright.sync_api import Page, expect

from kseri.learn import LANGUAGES

I18N = Path(__file__).resolve().parents[2] / "src" / "kseri" / "web" / "i18n"
SHOTS = {("capture", 0): "learn-play", ("kseri", 1): "learn-kseri", ("count", 2): "learn-count",
         ("relay", 0): "learn-choice", ("pisti", 0): "learn-pisti", ("sweep", 1): "learn-sweep"}


def tutorial(server: str, lang: str) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(f"{server}/api/learn/{lang}").json()
    return data


def do_step(page: Page, step: dict[str, Any], ui: dict[str, str]) -> None:
    """Answer one step wrongly (where a wrong answer exists), see why, then rightly."""
    ask = page.locator(".learn-ask")
    expect(ask.locator(".learn-do")).to_have_text(step["do"])
    if step["kind"] == "play":
        hand = step["before"]["hand"]
        expect(page.locator(".learn-card")).to_have_count(len(hand))
        wrong = [code for code in hand if code != step["card"]]
        if wrong:
            page.click(f'.learn-card[data-card="{wrong[0]}"]')
            expect(ask.locator(".learn-feedback")).to_have_text(step["wrong"][wrong[0]])
        page.click(f'.learn-card[data-card="{step["card"]}"]')
        for event in step["events"]:
            expect(page.locator(".learn-events")).to_contain_text(event["text"])
    elif step["kind"] == "count":
        expect(page.locator(".learn-captured li")).to_have_count(len(step["captured"]))
        page.fill("#learn-count", str(step["answer"] + 2))
        page.click("#learn-check")
        expect(ask.locator(".learn-feedback")).to_have_text(ui["notRight"])
        page.fill("#learn-count", str(step["answer"]))
        page.click("#learn-check")
        expect(page.locator(".learn-right")).to_have_text(f"{ui['right']} {step['answer']}")
    else:
        wrong = (step["answer"] + 1) % len(step["options"])
        page.click(f'.learn-option[data-option="{wrong}"]')
        expect(ask.locator(".learn-feedback")).to_have_text(ui["notRight"])
        page.click(f'.learn-option[data-option="{step["answer"]}"]')
        expect(page.locator(".learn-option.right")).to_have_text(step["options"][step["answer"]])
    expect(page.locator(".learn-outcome .learn-done")).to_have_text(step["done"])


def test_the_whole_tutorial_from_the_lobby_to_the_end(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    data = tutorial(server, "en")
    ui = data["ui"]
    page = page_errors.watch(new_context(DESKTOP).new_page())
    open_lobby(page, server)
    screenshot(page, "learn-lobby")
    page.click("#learn-link")
    expect(page.get_by_role("heading", name="Learn to play")).to_be_visible()
    expect(page.locator(".lesson-item")).to_have_count(len(data["lessons"]))
    expect(page.locator(".lesson-done")).to_have_count(0)
    expect(page.locator(".lesson-item.next .lesson-next")).to_have_text(f"→ {ui['startHere']}")
    expect(page.locator(".lesson-item.next .lesson-name")).to_have_text(data["lessons"][0]["title"])
    screenshot(page, "learn-lessons")
    page.click(f"#lesson-{data['lessons'][0]['id']}")
    for number, lesson in enumerate(data["lessons"], start=1):
        expect(page.locator(".learn-title")).to_contain_text(f"Lesson {number} of {len(data['lessons'])}")
        expect(page.locator(".learn-title")).to_contain_text(lesson["title"])
        expect(page.locator(".learn-intro")).to_have_text(lesson["intro"])
        if number == 2:  # back to the list once: the first lesson is ticked, the second is next
            page.click("#all-lessons")
            expect(page.locator(f"#lesson-{data['lessons'][0]['id']} .lesson-done")).to_be_visible()
            expect(page.locator(".lesson-item.next .lesson-name")).to_have_text(lesson["title"])
            page.click(f"#lesson-{lesson['id']}")
        for index, step in enumerate(lesson["steps"]):
            expect(page.locator(".learn-lesson")).to_have_attribute("data-step", str(index))
            do_step(page, step, ui)
            if (lesson["id"], index) in SHOTS:
                screenshot(page, SHOTS[lesson["id"], index])
            if lesson["id"] == "pisti" and index == 0:
                expect(page.locator(".learn-seen")).to_have_text("The face-down cards you took: 2♠ 9♠ 4♦")
            page.click("#learn-next")
    # The last lesson's "next" leads back to the list, every lesson ticked, and a reload keeps them.
    expect(page.locator(".lesson-done")).to_have_count(len(data["lessons"]))
    screenshot(page, "learn-all-done")
    page.reload()
    expect(page.locator(".lesson-done")).to_have_count(len(data["lessons"]))
    stored = page.evaluate("localStorage.getItem('kseri.learn.done')")
    assert sorted(json.loads(stored)) == sorted(lesson["id"] for lesson in data["lessons"])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_and_the_tutorial_in_each_language(
        lang: str, server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page_text = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    data = tutorial(server, lang)
    page = page_errors.watch(new_context(DESKTOP, locale=f"{lang}-XX").new_page())
    open_lobby(page, server)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.get_by_role("heading", name=page_text["lobby.newGame"])).to_be_visible()
    expect(page.locator("#learn-link")).to_have_text(page_text["lobby.learn"])
    screenshot(page, f"lobby-{lang}")
    page.click("#learn-link")
    expect(page.locator(".learn-title")).to_have_text(data["ui"]["lessons"])
    kseri = data["lessons"][2]
    page.click(f"#lesson-{kseri['id']}")
    do_step(page, kseri["steps"][0], data["ui"])
    page.click("#learn-next")
    do_step(page, kseri["steps"][1], data["ui"])
    expect(page.locator(".learn-mark")).to_have_text(kseri["steps"][1]["events"][0]["marks"][0]["text"])
    screenshot(page, f"learn-{lang}")


def test_a_link_to_a_lesson_makes_one_screen(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    """A link to a fragment fires popstate and then hashchange: the page routes once, so no
    second screen's load can redraw the lesson over a learner's answer (the page asks for the
    tutorial once per screen)."""
    step = tutorial(server, "en")["lessons"][2]["steps"][0]
    wrong = next(code for code in step["before"]["hand"] if code != step["card"])
    page = page_errors.watch(new_context(DESKTOP).new_page())
    page.goto(f"{server}/#learn")
    expect(page.locator("#lesson-kseri")).to_be_visible()
    loads: list[str] = []
    page.on("request", lambda request: loads.append(request.url) if "/api/learn/" in request.url else None)
    page.click("#lesson-kseri")
    page.click(f'.learn-card[data-card="{wrong}"]')
    expect(page.locator(".learn-ask .learn-feedback")).to_have_text(step["wrong"][wrong])
    assert len(loads) == 1, loads


def test_switching_the_language_on_the_tutorial_is_remembered(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    turkish = tutorial(server, "tr")
    page = page_errors.watch(new_context(DESKTOP).new_page())
    page.goto(f"{server}/#learn/relay")
    expect(page.locator(".learn-title")).to_contain_text("Laying the centre")
    page.select_option("#language-select", "tr")
    expect(page.locator(".learn-title")).to_contain_text(turkish["lessons"][5]["title"])
    expect(page.locator(".learn-do")).to_have_text(turkish["lessons"][5]["steps"][0]["do"])
    page.reload()
    expect(page.locator(".learn-title")).to_contain_text(turkish["lessons"][5]["title"])
    expect(page.locator("html")).to_have_attribute("lang", "tr")


def test_the_tutorial_fits_a_phone(server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(PHONE, is_mobile=True, has_touch=True).new_page())
    page.goto(f"{server}/#learn/kseri")
    cards = page.locator(".learn-card")
    expect(cards).to_have_count(6)
    for index in range(6):
        box = cards.nth(index).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "learn-phone")


def test_an_unknown_language_is_refused_plainly(server: str) -> None:
    answer = httpx.get(f"{server}/api/learn/de")
    assert answer.status_code == 404
    message = "no tutorial in 'de': choose one of en, el, pt, es, fr, tr"
    assert answer.json() == {"error": {"code": "not-found", "message": message}}


def test_the_tutorial_by_keyboard_alone(
        server: str, new_context: ContextFactory, page_errors: PageErrors) -> None:
    page = page_errors.watch(new_context(DESKTOP).new_page())
    page.goto(f"{server}/#learn/capture")
    page.locator('.learn-card[data-card="QH"]').focus()
    page.keyboard.press("Enter")  # a wrong card: explained, and the focus stays on it
    expect(page.locator(".learn-feedback")).to_have_text("Q♥ would just stay on the pile. Play 7♠.")
    expect(page.locator('.learn-card[data-card="QH"]')).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.locator('.learn-card[data-card="4C"]')).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # 7♠ takes the pile; the way on is focused
    expect(page.locator("#learn-next")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".learn-lesson")).to_have_attribute("data-step", "1")
    expect(page.locator('.learn-card[data-card="4C"]')).to_be_focused()  # the next step's first card
    page.keyboard.press("Enter")
    expect(page.locator(".learn-done")).to_contain_text("Your 4♣ now hides the 9♣")

"""The tutorial's lessons, played through the engine: what each one shows really happens."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from language_check import left_in_english

from kseri.cards import Card
from kseri.engine import Match, must_relay_centre
from kseri.learn import LANGUAGES, LESSONS, build_lesson, build_tutorial, lesson_texts
from kseri.learn.lessons import Centre, Lesson, Play
from kseri.learn.script import LessonError, prepared_deal
from kseri.learn.text import LanguageError
from kseri.rules import Rules, match_winner

TEXTS = Path(__file__).resolve().parents[2] / "src" / "kseri" / "learn" / "text"
LESSON = {lesson.id: lesson for lesson in LESSONS}


def marks(script: dict[str, object]) -> list[tuple[str, int]]:
    """Every (kind, points) mark the lesson's plays score, in order."""
    return [(mark["kind"], mark["points"]) for step in script["steps"]  # type: ignore[attr-defined]
            for event in step.get("events", []) for mark in event["marks"]]


def test_every_lesson_is_taught_in_every_language() -> None:
    for lang in LANGUAGES:
        tutorial = build_tutorial(lang)
        assert [lesson["id"] for lesson in tutorial["lessons"]] == [lesson.id for lesson in LESSONS]
        for script, lesson in zip(tutorial["lessons"], LESSONS, strict=True):
            assert len(script["steps"]) == len(lesson.steps)
            assert script["title"] and script["intro"]
            for step in script["steps"]:
                assert step["do"] and step["done"], (lang, lesson.id)


def test_capturing_by_rank_takes_the_whole_pile_and_only_the_top_counts() -> None:
    steps = build_lesson(LESSON["capture"])["steps"]
    assert [event["taken"] for event in steps[0]["events"]] == [5, 0]
    assert steps[1]["after"]["centre"] == ["9C", "4C", "8S"]
    assert steps[2]["events"][0]["taken"] == 4 and steps[2]["after"]["captured"] == [9, 0]


def test_the_jack_takes_any_pile_but_not_an_empty_table() -> None:
    steps = build_lesson(LESSON["jack"])["steps"]
    assert steps[0]["before"]["centre"][-1] == "KH" and steps[0]["events"][0]["taken"] == 5
    assert steps[2]["events"][0]["taken"] == 4
    opponent_jack = steps[2]["events"][1]
    assert (opponent_jack["card"], opponent_jack["taken"], opponent_jack["marks"]) == ("JC", 0, [])


def test_kseri_and_jack_kseri_score_as_the_guide_says() -> None:
    script = build_lesson(LESSON["kseri"])
    assert marks(script) == [("kseri", 10), ("jack-kseri", 20), ("kseri", 10)]
    assert script["steps"][3]["after"]["kseris"][0] == [
        {"kind": "kseri", "card": "TS", "points": 10}, {"kind": "jack-kseri", "card": "JC", "points": 20},
        {"kind": "kseri", "card": "5H", "points": 10}]


def test_the_last_sweep_goes_to_the_last_capturer() -> None:
    last = build_lesson(LESSON["sweep"])["steps"][-1]
    sweep = last["events"][-1]
    assert (sweep["seat"], sweep["card"], sweep["taken"]) == (0, None, 3)
    assert last["after"]["round_over"] and last["after"]["centre"] == []
    assert last["after"]["last_capturer"] == 0 and sum(last["after"]["captured"]) == 52


def test_the_count_exercise_is_checked_against_the_engines_score() -> None:
    lesson = LESSON["count"]
    rules = Rules()
    match = Match(rules, deal=prepared_deal(lesson, rules))
    while not match.is_round_over():
        match.play(match.legal_plays()[0])
    result = match.round_results[-1]
    _, cards, points = build_lesson(lesson)["steps"]
    assert cards["answer"] == len(result.captured[0]) == len(cards["captured"])
    assert cards["opponent_cards"] == 52 - cards["answer"]
    assert points["answer"] == result.points[0]
    assert points["breakdown"].endswith(f"= {result.points[0]}")
    assert sum(map(int, re.findall(r" (\d+)(?= ·| =)", points["breakdown"]))) == result.points[0]


def test_the_centre_questions_follow_the_engines_relaying_rule() -> None:
    steps = build_lesson(LESSON["relay"])["steps"]
    assert [step["answer"] for step in steps] == [1, 0, 1, 0]
    assert must_relay_centre([Card(code) for code in ["5S", "9D", "KC", "KH"]])
    assert not must_relay_centre([Card(code) for code in ["JS", "6D", "6H", "2S"]])


def test_the_match_questions_follow_the_engines_target_rule() -> None:
    steps = build_lesson(LESSON["match"])["steps"]
    assert [step["answer"] for step in steps] == [0, 2, 3, 0]
    assert "251" in steps[2]["options"][3]
    assert match_winner(Rules(), (156, 156), 151) == (None, 251)
    assert match_winner(Rules.preset("classic"), (105, 103), 101) == (0, 101)
    assert match_winner(Rules.preset("classic"), (105, 105), 101) == (None, 101)


def test_guide_003_double_kseri_and_no_jack_kseri() -> None:
    script = build_lesson(LESSON["classic"])
    assert marks(script) == [("kseri", 10), ("double-kseri", 20)]
    assert script["steps"][3]["events"][0]["taken"] == 2  # J♦ took the lone J♥: no kseri


def test_pisti_face_down_cards_seen_by_the_capturer_only_and_the_shown_card() -> None:
    script = build_lesson(LESSON["pisti"])
    first = script["steps"][0]
    assert first["before"]["face_down"] == 3 and first["before"]["seen"] == []
    assert first["after"]["seen"] == ["2S", "9S", "4D"] and first["after"]["face_down"] == 0
    assert first["before"]["shown"] is not None
    assert marks(script) == [("kseri", 10), ("jack-kseri", 20)]
    texts = [mark["text"] for step in script["steps"] for event in step["events"] for mark in event["marks"]]
    assert texts == ["Pisti! +10", "Double pisti! +20"]


def test_a_wrong_card_is_explained_by_what_it_would_do() -> None:
    step = build_lesson(LESSON["capture"])["steps"][0]
    assert set(step["wrong"]) == set(step["before"]["hand"]) - {"7S"}
    assert step["wrong"]["4C"] == "4♣ would just stay on the pile. Play 7♠."
    jack = build_lesson(LESSON["kseri"])["steps"][3]
    assert jack["wrong"]["JD"] == "J♦ would take the pile too, but this lesson asks for 5♥."


def test_lessons_that_do_not_fit_the_engine_are_refused_with_the_reason() -> None:
    twice = dataclasses.replace(LESSON["capture"], hands={(0, 0): "7S 7S QH 5D 2H 8H"})
    with pytest.raises(LessonError, match="every card of the 52-card deck exactly once"):
        build_lesson(twice)
    wrong_card = dataclasses.replace(LESSON["capture"], steps=(Play("AS"),))
    with pytest.raises(LessonError, match="lesson capture: AS is not in the hand of seat 0"):
        build_lesson(wrong_card)
    not_yours = dataclasses.replace(LESSON["capture"], dealer=0)
    with pytest.raises(LessonError, match="lesson capture, step 1: it is not the learner's turn"):
        build_lesson(not_yours)
    untold = Lesson("untold", steps=(Centre("2C 8H 4S TD"),))
    with pytest.raises(LessonError, match=r"lesson untold: no text 'untold\.1\.done'"):
        build_lesson(untold)
    with pytest.raises(LanguageError, match="no tutorial in 'de'"):
        lesson_texts("de")


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{\w+\}", text))


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_lesson_text_is_translated(lang: str) -> None:
    english = json.loads((TEXTS / "en.json").read_text(encoding="utf-8"))
    own = json.loads((TEXTS / f"{lang}.json").read_text(encoding="utf-8"))
    assert set(own) == set(english), f"missing {set(english) - set(own)}, extra {set(own) - set(english)}"
    for key, text in own.items():
        assert _placeholders(text) == _placeholders(english[key]), (lang, key)
        assert not left_in_english(lang, text, english[key]), f"{lang} {key} is left in English: {text!r}"


def test_the_classic_lesson_is_named_as_the_lobby_names_the_rules() -> None:
    """Lesson 8 is the lobby's *Classic (4 cards)* in every language, not "guide 003's game";
    `kseri rules` calls it Classic too, the guide staying only as where it comes from."""
    from kseri.rules import PRESET_SOURCES

    web = TEXTS.parents[1] / "web" / "i18n"
    for lang in LANGUAGES:
        lobby = json.loads((web / f"{lang}.json").read_text(encoding="utf-8"))["preset.classic"]
        texts = json.loads((TEXTS / f"{lang}.json").read_text(encoding="utf-8"))
        assert texts["classic.title"] == lobby, lang
        assert not any("003" in value for key, value in texts.items() if key.endswith(".title")), lang
    assert PRESET_SOURCES["classic"].startswith("Classic")
    assert all(not source.startswith("guide 003") for source in PRESET_SOURCES.values())

"""``kseri learn`` driven as a learner would: a subprocess reading scripted answers."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

from kseri.learn import LESSONS, build_tutorial

Run = Callable[..., subprocess.CompletedProcess[str]]


def answers(tutorial: dict[str, Any]) -> list[str]:
    """Lines that go through every lesson, each step first answered wrongly, then rightly."""
    lines = []
    for lesson in tutorial["lessons"]:
        for step in lesson["steps"]:
            if step["kind"] == "play":
                wrong = [code for code in step["before"]["hand"] if code != step["card"]][:1]
                right = str(step["before"]["hand"].index(step["card"]) + 1)  # by its number in the hand
                lines += [*wrong, "zz", right]
            elif step["kind"] == "count":
                lines += ["many", str(step["answer"] + 1), str(step["answer"])]
            else:
                lines += [str((step["answer"] + 1) % len(step["options"]) + 1), str(step["answer"] + 1)]
    return lines


def test_the_whole_tutorial_in_the_terminal(run_kseri: Run) -> None:
    tutorial = build_tutorial("en")
    done = run_kseri(["learn", "--lang", "en"], "\n".join(answers(tutorial)) + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for number, lesson in enumerate(tutorial["lessons"], start=1):
        assert f"== Lesson {number} of {len(LESSONS)}: {lesson['title']}" in out
        assert f"-- {lesson['title']}: done" in out
    assert "Centre: 3♣ 8♦ K♠ [7♥]" in out and "Your hand: 1) 7♠ 2) 4♣ 3) Q♥ 4) 5♦ 5) 2♥ 6) 8♥" in out
    assert "4♣ would just stay on the pile. Play 7♠." in out  # a wrong card, explained
    assert "  You: 10♠, took 2 cards." in out and "  ** Kseri! +10" in out and "  ** Jack kseri! +20" in out
    assert "  You: the 3 cards left in the centre (the last capture takes them)." in out
    count = tutorial["lessons"][4]["steps"][2]
    assert f"Right! {count['answer']}" in out and count["breakdown"] in out
    assert "Type a number." in out and "Not quite. Look again and try once more." in out
    assert "The face-down cards you took: 2♠ 9♠ 4♦" in out
    assert out.rstrip().endswith("You have finished every lesson. Now play a real game!")


def test_one_lesson_in_greek_and_stopping_with_q(run_kseri: Run) -> None:
    greek = build_tutorial("el")
    done = run_kseri(["learn", "--lang", "el", "--lesson", "kseri"], "1\nq\n")
    assert done.returncode == 0, done.stderr
    kseri = greek["lessons"][2]
    assert kseri["title"] in done.stdout and kseri["steps"][0]["done"] in done.stdout
    assert done.stdout.rstrip().endswith(greek["ui"]["quit"])


def test_the_language_comes_from_lang_and_bad_flags_are_named(
        run_kseri: Run, kseri_env: dict[str, str]) -> None:
    kseri_env["LANG"] = "fr_FR.UTF-8"
    done = run_kseri(["learn", "--lesson", "relay"], "")
    assert build_tutorial("fr")["lessons"][5]["title"] in done.stdout
    wrong = run_kseri(["learn", "--lang", "de"])
    assert wrong.returncode == 2 and "--lang" in wrong.stderr and "'de' is not one of en, el" in wrong.stderr
    wrong = run_kseri(["learn", "--lesson", "poker"])
    assert wrong.returncode == 2 and "--lesson" in wrong.stderr
    assert "'poker' is not one of capture" in wrong.stderr

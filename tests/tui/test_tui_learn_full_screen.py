"""The tutorial full screen, driven headless through Textual's pilot: every lesson to its end."""

from __future__ import annotations

import fcntl
import io
import os
import struct
import subprocess
import sys
import termios

from rich.console import Console
from test_tui_pty import read_until

from kseri.learn import build_tutorial
from kseri.tui.learn_app import LearnApp


def screen_text(app: LearnApp) -> str:
    """The terminal's text as the learner sees it."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True,
                      force_terminal=True, color_system="truecolor")
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def test_every_lesson_by_keys_with_a_wrong_try_each() -> None:
    tutorial = build_tutorial("en")
    app = LearnApp(tutorial)
    async with app.run_test(size=(110, 50)) as pilot:
        await pilot.pause()
        for number, lesson in enumerate(tutorial["lessons"], start=1):
            for index, step in enumerate(lesson["steps"]):
                text = screen_text(app)
                assert f"Lesson {number} of 9: {lesson['title']}" in text
                assert step["do"][:40] in text
                if step["kind"] == "play":
                    hand = step["before"]["hand"]
                    wrong = [position for position, code in enumerate(hand) if code != step["card"]]
                    if wrong:
                        await pilot.press(str(wrong[0] + 1))
                        await pilot.pause()
                        assert step["wrong"][hand[wrong[0]]] in screen_text(app)
                        assert not app.answered
                    await pilot.press(str(hand.index(step["card"]) + 1))
                elif step["kind"] == "count":
                    await pilot.press(*str(step["answer"] + 1), "enter")
                    await pilot.pause()
                    assert "Not quite" in screen_text(app) and not app.answered
                    await pilot.press("backspace", "backspace", "backspace", *str(step["answer"]), "enter")
                else:
                    await pilot.press(str((step["answer"] + 1) % len(step["options"]) + 1))
                    await pilot.pause()
                    assert not app.answered
                    await pilot.press(str(step["answer"] + 1))
                await pilot.pause()
                assert app.answered, (lesson["id"], index)
                text = screen_text(app)
                assert step["done"][:40] in text
                if lesson["id"] == "kseri" and index == 1:
                    assert "** Kseri! +10" in text
                await pilot.press("enter")
                await pilot.pause()
    assert app.finished and app.return_value == 0


async def test_a_card_clicked_and_q_stops() -> None:
    tutorial = build_tutorial("tr")
    app = LearnApp(tutorial, ["capture"])
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.pause()
        await pilot.click("#hand CardFace")  # the first card, 7♠: the right one
        await pilot.pause()
        assert app.answered
        assert tutorial["lessons"][0]["steps"][0]["done"][:30] in screen_text(app)
        await pilot.press("q")
    assert not app.finished and app.return_value == 0


def test_kseri_learn_runs_full_screen_in_a_terminal(kseri_env: dict[str, str]) -> None:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 110, 0, 0))
    learn = subprocess.Popen(
        [sys.executable, "-m", "kseri", "learn", "--lang", "en", "--lesson", "relay"],
        stdin=slave, stdout=slave, stderr=slave, env=kseri_env | {"TERM": "xterm-256color"},
        start_new_session=True,
    )
    os.close(slave)
    screen = bytearray()
    try:
        read_until(master, b"Laying the centre", screen)
        read_until(master, b"Does this centre stay?", screen)
        os.write(master, b"2")  # the two Kings on top: laid again
        read_until(master, b"Right!", screen)
        os.write(master, b"q")
        assert learn.wait(timeout=30) == 0
    finally:
        os.close(master)
        if learn.poll() is None:
            learn.kill()

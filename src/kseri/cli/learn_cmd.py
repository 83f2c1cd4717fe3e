"""``kseri learn``: the interactive tutorial, line by line, on prepared deals."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from kseri.cli.command import app
from kseri.cli.play_cmd import full_screen_possible
from kseri.learn import LANGUAGES, LESSONS, build_tutorial
from kseri.tui.learn import LineTutorial


def _language_from_environment() -> str:
    """The first tutorial language named by LANGUAGE, LC_ALL or LANG, else English."""
    for name in ("LANGUAGE", "LC_ALL", "LANG"):
        for tag in os.environ.get(name, "").split(":"):
            base = tag.split("_")[0].split(".")[0].lower()
            if base in LANGUAGES:
                return base
    return "en"


LESSON_IDS = [item.id for item in LESSONS]


@app.command("learn")
def learn_command(
    lang: Annotated[
        str | None,
        typer.Option("--lang", help=f"The tutorial's language: {', '.join(LANGUAGES)} (default: from LANG)."),
    ] = None,
    lesson: Annotated[
        list[str] | None,
        typer.Option("--lesson", help=f"Only this lesson (repeatable): {', '.join(LESSON_IDS)}."),
    ] = None,
    plain: Annotated[bool, typer.Option(
        "--plain", help="Line-by-line mode (also used when there is no full-screen terminal).")] = False,
) -> None:
    """Learn to play: lessons on prepared deals, played on the real engine (q stops)."""
    chosen = lang or _language_from_environment()
    if chosen not in LANGUAGES:
        raise typer.BadParameter(f"{chosen!r} is not one of {', '.join(LANGUAGES)}", param_hint="--lang")
    for name in lesson or []:
        if name not in LESSON_IDS:
            raise typer.BadParameter(f"{name!r} is not one of {', '.join(LESSON_IDS)}", param_hint="--lesson")
    tutorial = build_tutorial(chosen)
    if full_screen_possible(plain):
        from kseri.tui.learn_app import LearnApp

        raise typer.Exit(LearnApp(tutorial, lesson).run() or 0)
    raise typer.Exit(LineTutorial(tutorial).run(lesson))

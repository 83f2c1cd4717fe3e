"""``kseri play`` (a match against bots in the terminal) and ``kseri show`` (replay a record)."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from kseri.agents import AGENTS
from kseri.cli.command import app, bot_level, rules_spec
from kseri.rules import Rules, RulesError

DEFAULT_LEVEL = "expert"
"""The bots' level when ``--level`` is not given: strong, and quick to answer."""


def full_screen_possible(plain: bool) -> bool:
    """Whether the full-screen app can run: not ``--plain``, a terminal on both ends, not ``dumb``."""
    term = os.environ.get("TERM", "")
    return not plain and sys.stdin.isatty() and sys.stdout.isatty() and term not in ("", "dumb")


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


@app.command("play")
def play_command(
    rules: Annotated[str, typer.Option(
        callback=rules_spec, help="A preset with overrides, e.g. greek,jack_kseri=25.")] = "greek",
    level: Annotated[str, typer.Option(
        callback=bot_level, help=f"The bots' level: {', '.join(AGENTS)}.")] = DEFAULT_LEVEL,
    seats: Annotated[str | None, typer.Option(
        help="Who sits where, in seat order: 'you' once and bot levels, e.g. you,expert,greedy,expert "
        "(partners sit opposite: seats 0 and 2, 1 and 3).")] = None,
    seed: Annotated[int | None, typer.Option(
        help="Seed of the match: the same seed deals the same cards.")] = None,
    record: Annotated[Path | None, typer.Option(
        help="Save the game record to this file (on 's', on quitting, and at the end).")] = None,
    resume: Annotated[Path | None, typer.Option(
        help="Continue the unfinished match saved in this file.")] = None,
    plain: Annotated[bool, typer.Option(
        "--plain", help="Line-by-line mode (also used when there is no full-screen terminal).")] = False,
    delay: Annotated[float, typer.Option(
        min=0.0, help="Seconds each bot play stays on screen before the next one "
        "(the plain mode waits only on a terminal).")] = 0.6,
    hint_iterations: Annotated[int | None, typer.Option(
        min=1, help="Work the master bot puts into a hint (default: its own).")] = None,
) -> None:
    """Play a match against bots in the terminal."""
    from kseri.tui.session import GameSession, SessionError, parse_seats

    try:
        if resume is not None:
            session = GameSession.resume(resume, record_path=record)
        else:
            rule_set = Rules.from_spec(rules)
            specs = parse_seats(seats, rule_set.players, level.lower())
            session = GameSession.start(rule_set, specs, seed, record_path=record)
    except (RulesError, SessionError) as error:
        raise _fail(str(error)) from None
    if full_screen_possible(plain):
        from kseri.tui.app import PlayApp

        message = PlayApp(session, delay=delay, hint_iterations=hint_iterations).run()
        if message:
            with contextlib.suppress(OSError):  # the terminal may be gone (a hang-up)
                typer.echo(message)
        return
    from kseri.tui.plain import PlainGame

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    game = PlainGame(session, delay=delay if interactive else 0.0, hint_iterations=hint_iterations)
    raise typer.Exit(game.run())


@app.command("show")
def show_command(
    file: Annotated[Path, typer.Argument(help="A finished game record (kseri play --record FILE).")],
    plain: Annotated[bool, typer.Option("--plain", help="Print the replay line by line.")] = False,
    number: Annotated[int, typer.Option(
        min=1, help="Which record of a file of several (JSON Lines, as kseri simulate writes).")] = 1,
) -> None:
    """Replay a finished match step by step, every hand shown."""
    from kseri.tui.replay import ReplayError, print_replay, replay_steps

    try:
        replay = replay_steps(file, number)
    except ReplayError as error:
        raise _fail(str(error)) from None
    if full_screen_possible(plain):
        from kseri.tui.app import ReplayApp

        ReplayApp(replay).run()
        return
    print_replay(replay)

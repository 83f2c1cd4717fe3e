"""``kseri trainer``: the memory trainer's drill in the terminal, line by line."""

from __future__ import annotations

import secrets
import sys
from typing import Annotated

import typer

from kseri.analysis.memory import Moment
from kseri.cli.command import app
from kseri.rules import PRESETS, Rules


@app.command("trainer")
def trainer_command(
    moment: Annotated[Moment, typer.Option(
        "--moment", help="When in the round: early, middle or last batch.")] = Moment.MIDDLE,
    preset: Annotated[str, typer.Option("--preset", help=f"The game: {', '.join(PRESETS)}.")] = "greek",
    seed: Annotated[int | None, typer.Option(
        "--seed", min=0, help="The first position's seed (default: drawn).")] = None,
    count: Annotated[int | None, typer.Option(
        "--count", min=1, help="Stop after this many positions.")] = None,
    pace: Annotated[float, typer.Option("--pace", min=0, max=10,
                                        help="Seconds each card played stays before the next.")] = 0.7,
) -> None:
    """Drill your card memory: watch the cards played pass by, then say what is still out (q stops)."""
    from kseri.tui.trainer import LineTrainer, TrainerSession

    if preset not in PRESETS:
        raise typer.BadParameter(f"{preset!r} is not one of {', '.join(PRESETS)}", param_hint="--preset")
    session = TrainerSession(Rules.preset(preset), moment, secrets.randbelow(10**9) if seed is None else seed)
    raise typer.Exit(LineTrainer(session, out=sys.stdout, inp=sys.stdin, pace=pace).run(count))

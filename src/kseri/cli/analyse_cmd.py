"""``kseri analyse``: the master's review of a finished game, play by play."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from kseri.analysis import ANALYSIS_ITERATIONS, Analysis, analyse_record, record_plays, verdict_text
from kseri.cli.command import app, errors
from kseri.records import RecordError, read_records

out = Console(highlight=False, soft_wrap=True)


def _fail(message: str) -> NoReturn:
    errors.print(f"[red]error:[/red] {message}")
    raise typer.Exit(2)


@app.command("analyse")
def analyse_command(
    path: Annotated[Path, typer.Argument(help="A record (JSON) or a JSON Lines file of records.")],
    game: Annotated[int, typer.Option("--game", min=1, help="Which record of a JSON Lines file.")] = 1,
    iterations: Annotated[
        int, typer.Option("--iterations", min=1, help="Worlds the master samples per play.")
    ] = ANALYSIS_ITERATIONS,
    as_json: Annotated[bool, typer.Option("--json", help="Print the analysis as JSON.")] = False,
    mistakes: Annotated[int, typer.Option("--mistakes", min=0, help="How many mistakes to list.")] = 5,
) -> None:
    """Review every play from its player's view: accuracy per player and the biggest mistakes."""
    try:
        records = read_records(path)
    except OSError as error:
        _fail(f"cannot read {path}: {error.strerror}")
    except (RecordError, UnicodeDecodeError) as error:
        _fail(str(error))
    if game > len(records):
        _fail(f"{path} holds {len(records)} record(s), not {game}")
    record = records[game - 1]
    try:
        total = len(record_plays(record))
    except RecordError as error:
        _fail(str(error))
    progress = Progress(TextColumn("analysing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        console=errors, transient=True)
    with progress:
        task = progress.add_task("plays", total=total)
        analysis = analyse_record(record, iterations=iterations, progress=lambda: progress.advance(task))
    if as_json:
        out.print_json(json.dumps(analysis.to_json()))
        return
    _show(analysis, mistakes)


def _show(analysis: Analysis, count: int) -> None:
    players = Table(title="accuracy")
    for column in ("seat", "player", "plays", "decisions", "accuracy", "points lost"):
        players.add_column(column, justify="left" if column == "player" else "right")
    for player in analysis.players:
        accuracy = "–" if player.accuracy is None else f"{player.accuracy:.1f}%"
        players.add_row(str(player.seat), player.name, str(player.plays), str(player.decisions), accuracy,
                        f"{player.total_loss:.2f}")
    out.print(players)
    worst = analysis.mistakes(count)
    if not worst:
        out.print("no mistake costing a point or more")
        return
    table = Table(title="biggest mistakes")
    for column in ("round", "play", "player", "played", "best", "loss", "verdict"):
        table.add_column(column, justify="left" if column in ("player", "verdict") else "right")
    for review in worst:
        table.add_row(str(review.round + 1), str(review.play + 1), analysis.players[review.seat].name,
                      review.card.pretty(), review.best.pretty(), f"{review.loss:.2f}",
                      "" if review.verdict is None else verdict_text(review.verdict))
    out.print(table)

"""``kseri puzzles generate``: puzzles cut from records or bot games; ``kseri puzzle``: solve them
in the terminal."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from kseri.analysis.puzzles import (
    MIN_GAP,
    Puzzle,
    PuzzleError,
    bot_records,
    puzzles_from_record,
    read_puzzles,
    starting_set,
)
from kseri.analysis.review import record_plays
from kseri.analysis.search import WORLDS
from kseri.cli.command import app, bot_level, errors, rules_spec
from kseri.cli.play_cmd import full_screen_possible
from kseri.learn.text import LANGUAGES
from kseri.records import RecordError, read_records

puzzles_app = typer.Typer(help="Puzzles cut from finished games.", no_args_is_help=True)
app.add_typer(puzzles_app, name="puzzles")


def _fail(message: str) -> NoReturn:
    errors.print(f"[red]error:[/red] {message}")
    raise typer.Exit(2)


def _records(paths: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    """Every record of ``paths`` named for errors, each checked to replay."""
    named = []
    for path in paths:
        try:
            records = read_records(path)
        except OSError as error:
            _fail(f"cannot read {path}: {error.strerror}")
        except (RecordError, UnicodeDecodeError) as error:
            _fail(f"{path}: {error}")
        for number, record in enumerate(records, 1):
            where = f"{path}, record {number}"
            try:
                record_plays(record)
            except (RecordError, KeyError, TypeError, ValueError) as error:
                _fail(f"{where} does not replay: {error}")
            named.append((where, record))
    return named


@puzzles_app.command("generate")
def generate_command(
    records: Annotated[list[Path] | None, typer.Argument(
        help="Records (JSON) or JSON Lines files of records.", show_default=False)] = None,
    out: Annotated[Path, typer.Option("--out", help="Where to write the puzzles (JSON Lines).")] = Path(
        "puzzles.jsonl"),
    bots: Annotated[int, typer.Option("--bots", min=0,
                                      help="Also cut puzzles from this many bot games.")] = 0,
    level: Annotated[str, typer.Option("--level", callback=bot_level, help="The bots' level.")] = "expert",
    rules: Annotated[str | None, typer.Option("--rules", callback=rules_spec,
                                              help="The bot games' rules (default greek).")] = None,
    worlds: Annotated[int, typer.Option("--worlds", min=2,
                                        help="Worlds measured per position for the interval.")] = WORLDS,
    min_gap: Annotated[float, typer.Option("--min-gap", min=0.0,
                                           help="Points the best card must lead by.")] = MIN_GAP,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the searches and the bot games.")] = 0,
) -> None:
    """Cut puzzles from finished games: positions where one card is clearly best."""
    named = _records(records or [])
    if bots:
        named += [(f"bot game {n + 1}", r) for n, r in enumerate(bot_records(bots, level, rules, seed))]
    if not named:
        _fail("no game to cut puzzles from: give records or --bots N")
    total = sum(len(record_plays(record)) for _, record in named)
    found: list[Puzzle] = []
    seen: set[str] = set()
    progress = Progress(TextColumn("cutting puzzles"), BarColumn(), MofNCompleteColumn(),
                        TimeRemainingColumn(), console=errors, transient=True)
    with progress:
        task = progress.add_task("positions", total=total)
        for _, record in named:
            for puzzle in puzzles_from_record(record, worlds=worlds, min_gap=min_gap,
                                              seed=seed, progress=lambda: progress.advance(task)):
                if puzzle.id not in seen:
                    seen.add(puzzle.id)
                    found.append(puzzle)
    temporary = out.with_name(out.name + ".tmp")
    try:
        temporary.write_text("".join(json.dumps(p.to_json(), ensure_ascii=False) + "\n" for p in found),
                             encoding="utf-8")
        os.replace(temporary, out)
    except OSError as error:
        _fail(f"cannot write {out}: {error.strerror}")
    errors.print(f"{len(found)} puzzles from {len(named)} games ({total} positions) in {out}")


@app.command("puzzle")
def puzzle_command(
    file: Annotated[Path | None, typer.Option(
        "--file", help="Puzzles (JSON Lines) from 'kseri puzzles generate' (default: the shipped set).",
    )] = None,
    lang: Annotated[str, typer.Option("--lang", help=f"The language: {', '.join(LANGUAGES)}.")] = "en",
    count: Annotated[int | None, typer.Option("--count", min=1, help="Stop after this many puzzles.")] = None,
    progress_file: Annotated[Path | None, typer.Option(
        "--progress", help="Keep the rating and the puzzles done in this file (JSON).")] = None,
    retry: Annotated[bool, typer.Option("--retry",
                                        help="Replay the puzzles failed (needs --progress).")] = False,
    plain: Annotated[bool, typer.Option(
        "--plain", help="Line-by-line mode (also used when there is no full-screen terminal).")] = False,
) -> None:
    """Solve puzzles from real games: name the best card (full screen, or line by line; q stops)."""
    from kseri.tui.puzzle import LinePuzzles, Progress, PuzzleSession

    if lang not in LANGUAGES:
        raise typer.BadParameter(f"{lang!r} is not one of {', '.join(LANGUAGES)}", param_hint="--lang")
    if retry and progress_file is None:
        raise typer.BadParameter("--retry needs --progress FILE (where the failures are kept)",
                                 param_hint="--retry")
    try:
        puzzles = list(starting_set()) if file is None else read_puzzles(
            file.read_text(encoding="utf-8").splitlines())
    except OSError as error:
        _fail(f"cannot read {file}: {error.strerror}")
    except (PuzzleError, UnicodeDecodeError) as error:
        _fail(f"{file}: {error}")
    try:
        progress = Progress() if progress_file is None else Progress.load(progress_file)
    except ValueError as error:
        _fail(str(error))
    session = PuzzleSession(puzzles, progress, lang=lang, retry=retry)
    if full_screen_possible(plain):
        from kseri.tui.puzzle_app import PuzzleApp

        status = PuzzleApp(session, count).run() or 0
    else:
        status = LinePuzzles(session, out=sys.stdout, inp=sys.stdin).run(count)
    if progress_file is not None:
        progress.save(progress_file)
    raise typer.Exit(status)

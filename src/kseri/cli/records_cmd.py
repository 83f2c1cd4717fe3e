"""``kseri simulate``, ``replay``, ``verify`` and ``notation``: game records on the command line."""

from __future__ import annotations

import json
import random
import time
from functools import partial
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from kseri.bench.executors import ClusterError, Executor, RayCluster
from kseri.bench.simulation import Tally, run_simulation
from kseri.cli.command import RayOptionCommand, app, errors, ray_option, rules_spec
from kseri.notation import NotationError, format_notation, parse_notation
from kseri.records import (
    RecordError,
    append_record,
    read_records,
    record_problems,
    replay_record,
)
from kseri.rules import Rules, RulesError

_PROGRESS_FROM = 20
"""Runs of at least this many matches show a progress bar."""

out = Console(highlight=False, soft_wrap=True)


def _fail(message: str) -> NoReturn:
    errors.print(f"[red]error:[/red] {escape(message)}")
    raise typer.Exit(2)


def _read(path: Path) -> list[dict[str, Any]]:
    try:
        return read_records(path)
    except OSError as error:
        _fail(f"cannot read {path}: {error.strerror}")
    except (RecordError, UnicodeDecodeError) as error:
        _fail(str(error))


@app.command("simulate", cls=RayOptionCommand)
def simulate_command(
    rules_spec: Annotated[
        str, typer.Option("--rules", callback=rules_spec,
                          help="A preset with overrides, e.g. greek,jack_kseri=25.")
    ] = "greek",
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Matches to play.")] = 100,
    seed: Annotated[
        str | None, typer.Option("--seed", help="Makes the run reproducible (default: random).")
    ] = None,
    records: Annotated[
        Path | None, typer.Option("--records", help="Write one record per match to this JSON Lines file.")
    ] = None,
    fast: Annotated[
        bool,
        typer.Option("--fast", help="Play on the compiled core (kseri.fast): its own shuffle, no records."),
    ] = False,
    ray: Annotated[str | None, ray_option()] = None,
) -> None:
    """Play matches between random bots and summarise them (optionally writing their records)."""
    try:
        rules = Rules.from_spec(rules_spec)
    except RulesError as error:
        _fail(str(error))
    seed = seed if seed is not None else str(random.SystemRandom().getrandbits(32))
    if fast:
        if records is not None:
            _fail("--fast keeps no records: drop --records, or --fast to write them")
        if ray is not None:
            _fail("--fast plays on the compiled core in this process: drop --ray, or --fast to use a cluster")
        _simulate_fast(rules_spec, rules, games, seed)
        return
    if records is not None:
        try:
            records.write_text("", encoding="utf-8")
        except OSError as error:
            _fail(f"cannot write {records}: {error.strerror}")
    progress = Progress(
        TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=errors, transient=True, disable=games < _PROGRESS_FROM,
    )
    write = partial(append_record, records) if records is not None else None
    try:
        with RayCluster(ray) if ray is not None else Executor() as executor, progress:
            started = time.perf_counter()  # the games' time, not a cluster's start
            bar = progress.add_task("matches", total=games)
            tally = run_simulation(rules, games, seed, executor, write,
                                   lambda done: progress.advance(bar, done))
            elapsed = time.perf_counter() - started
    except ClusterError as error:
        _fail(str(error))
    _summary(rules_spec, seed, tally, elapsed, records)


def _simulate_fast(spec: str, rules: Rules, games: int, seed: str) -> None:
    """The matches on the compiled core, summarised as the others."""
    from kseri.fast import play_matches  # numba loads only for --fast
    started = time.perf_counter()
    matches = play_matches(rules, games, seed=seed)
    elapsed = time.perf_counter() - started
    tally = Tally(rules.sides, matches=games, rounds=int(matches.rounds.sum()),
                   kseris=int(matches.kseris.sum()))
    tally.plays = tally.rounds * rules.batches * rules.players * rules.batch_size
    tally.wins = [int((matches.winner == side).sum()) for side in range(rules.sides)]
    tally.points = [int(points) for points in matches.totals.sum(axis=0)]
    _summary(spec, seed, tally, elapsed, None)


def _summary(spec: str, seed: str, tally: Tally, elapsed: float, records: Path | None) -> None:
    table = Table(title=f"simulate --rules {spec} --seed {seed}", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("matches", str(tally.matches))
    table.add_row("rounds", f"{tally.rounds} ({tally.rounds / tally.matches:.2f} a match)")
    for side, wins in enumerate(tally.wins):
        table.add_row(f"side {side} wins", f"{wins} ({100 * wins / tally.matches:.1f}%)")
    for side, points in enumerate(tally.points):
        table.add_row(f"side {side} points a round", f"{points / tally.rounds:.2f}")
    table.add_row("kseris a round", f"{tally.kseris / tally.rounds:.3f}")
    rate = f"{tally.matches / elapsed:.1f} matches/s, {tally.plays / elapsed:,.0f} plays/s"
    table.add_row("throughput", rate)
    if records is not None:
        table.add_row("records", str(records))
    out.print(table)


@app.command("replay")
def replay_command(
    path: Annotated[Path, typer.Argument(help="A JSON Lines file of records, or one JSON record.")],
) -> None:
    """Re-play every record and report each derived field that disagrees (exit 1 if any)."""
    records = _read(path)
    bad = 0
    found = 0
    for number, record in enumerate(records, start=1):
        mismatches = replay_record(record)
        bad += bool(mismatches)
        found += len(mismatches)
        for mismatch in mismatches:
            joint = ", " if mismatch.round is not None else ": "
            out.print(f"match {number}{joint}{mismatch}")
    verdict = "[green]all consistent[/green]" if not found else f"[red]{found} mismatch(es) in {bad}[/red]"
    out.print(f"{len(records)} record(s) re-played: {verdict}")
    if found:
        raise typer.Exit(1)


@app.command("verify")
def verify_command(
    path: Annotated[Path, typer.Argument(help="A record (JSON) or a JSON Lines file of records.")],
) -> None:
    """Check each deal against its deal seed and fairness proof, and re-play (exit 1 on problems)."""
    records = _read(path)
    problems = 0
    for number, record in enumerate(records, start=1):
        found = record_problems(record)
        problems += len(found)
        prefix = f"match {number}: " if len(records) > 1 else ""
        for problem in found:
            out.print(f"{prefix}{problem}")
        rounds = record.get("rounds")
        proofs = sum(1 for r in rounds if isinstance(r, dict) and r.get("fairness")) if isinstance(
            rounds, list) else 0
        if not found:
            out.print(f"{prefix}[green]verified[/green]: every deal follows from its deal seed"
                      + (f", {proofs} fairness proof(s) hold" if proofs else "")
                      + ", and the scores re-play")
    if problems:
        raise typer.Exit(1)


@app.command("notation")
def notation_command(
    path: Annotated[Path, typer.Argument(help="A record or JSON Lines file; with --parse, a notation file.")],
    parse: Annotated[bool, typer.Option("--parse", help="Read notation, print the record as JSON.")] = False,
    number: Annotated[
        int | None, typer.Option("--match", min=1, help="Only this record of a JSON Lines file (from 1).")
    ] = None,
) -> None:
    """Print a record in the text notation, or (with --parse) the notation as a JSON record."""
    if parse:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            _fail(f"cannot read {path}: {error.strerror}")
        try:
            record = parse_notation(text)
        except NotationError as error:
            _fail(f"{path}, {error}")
        print(json.dumps(record, ensure_ascii=False, indent=1))
        return
    records = _read(path)
    if number is not None:
        if number > len(records):
            _fail(f"{path} holds {len(records)} record(s), not {number}")
        records = [records[number - 1]]
    try:
        print("\n".join(format_notation(record) for record in records), end="")
    except RecordError as error:
        _fail(str(error))

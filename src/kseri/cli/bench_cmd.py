"""``kseri tournament`` (the bench) and ``kseri engine`` (a built-in bot over the engine protocol)."""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from kseri.agents.base import AGENTS
from kseri.bench.report import plot, render, summarize
from kseri.bench.tournament import (
    Player,
    TournamentConfig,
    builtin_player,
    engine_player,
    run_tournament,
    total_games,
)
from kseri.cli.command import (
    RayOptionCommand,
    app,
    bot_level,
    check_workers,
    errors,
    ray_option,
    rules_spec,
    run_on_executor,
)
from kseri.protocol.engine_side import serve_level
from kseri.rules import Rules, RulesError


@app.command("tournament", cls=RayOptionCommand)
def tournament_command(
    players: Annotated[
        list[str] | None, typer.Argument(help=f"Built-in levels to enter: {', '.join(AGENTS)}.")
    ] = None,
    engines: Annotated[
        list[str] | None,
        typer.Option("--engine", help="An external engine as NAME=COMMAND (repeatable): mine='./engine -q'."),
    ] = None,
    rules_text: Annotated[str, typer.Option(
        "--rules", callback=rules_spec, help="Rule set: a preset with overrides.")] = "greek",
    deals: Annotated[int, typer.Option(help="Duplicate deals per pair.")] = 200,
    matches: Annotated[int, typer.Option(help="Match seeds per pair, each played in every seating.")] = 20,
    seed: Annotated[int, typer.Option(help="Tournament seed: the same seed gives the same results.")] = 1,
    workers: Annotated[int, typer.Option(help="Worker processes (0: one per CPU core).")] = 0,
    ray: Annotated[str | None, ray_option()] = None,
    time_ms: Annotated[int, typer.Option("--time-ms", help="Thinking time per play for engines.")] = 1000,
    grace_ms: Annotated[int, typer.Option("--grace-ms", help="Extra wait before an engine forfeits.")] = 1000,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap samples for the rating intervals.")] = 200,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the summary as JSON here.")] = None,
    plot_path: Annotated[
        Path | None, typer.Option("--plot", help="Write the ratings and differences as a PNG here.")
    ] = None,
) -> None:
    """Play every pair of players on duplicate deals and matches; print ratings and statistics."""
    console = Console()
    try:
        check_workers(workers, ray)
        entrants: list[Player] = [builtin_player(level) for level in players or []]
        entrants += [engine_player(spec) for spec in engines or []]
        config = TournamentConfig(tuple(entrants), Rules.from_spec(rules_text), deals, matches, seed, time_ms,
                                  grace_ms)
    except (ValueError, RulesError) as error:
        errors.print(f"[red]error:[/red] {escape(str(error))}")
        raise typer.Exit(2) from None
    outcome = run_on_executor("tournament", "games", total_games(config), workers, ray,
                              partial(run_tournament, config))
    summary = summarize(outcome, bootstrap=bootstrap)
    render(summary, console)
    if json_path is not None:
        json_path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        console.print(f"summary written to {json_path}", highlight=False)
    if plot_path is not None:
        plot(summary, plot_path)
        console.print(f"plot written to {plot_path}", highlight=False)


@app.command("engine")
def engine_command(
    level: Annotated[str, typer.Option(
        callback=bot_level, help=f"The bot to serve: {', '.join(AGENTS)}.")],
    seed: Annotated[int | None, typer.Option(help="Seed for the bot until new_match brings one.")] = None,
) -> None:
    """Serve a built-in bot over the engine protocol on stdin/stdout (docs/engine-protocol.md)."""
    try:
        serve_level(level, seed, sys.stdin, sys.stdout)
    except ValueError as error:
        Console(stderr=True).print(f"[red]error:[/red] {error}", highlight=False)
        raise typer.Exit(2) from None

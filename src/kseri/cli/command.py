"""The ``kseri`` command's Typer app and the options its commands share."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from typer.core import TyperCommand

from kseri.bench.executors import ClusterError, Executor, RayCluster, local_executor

errors = Console(stderr=True, highlight=False, soft_wrap=True)
"""The commands' standard error: errors, notes and progress bars (soft wrap: an error names a
path whole, never broken over lines)."""

app = typer.Typer(
    name="kseri",
    help="Kseri (Ξερή): play, simulate, replay and serve the Greek card game and its family.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # click's plain help: "--plain  Line-by-line mode", no "<bool>" noise
)


def rules_spec(value: str | None) -> str | None:
    """Check a ``--rules`` value (a preset with overrides) as it is parsed, so that a bad one
    is reported as ``Invalid value for '--rules': …`` naming the problem."""
    from kseri.rules import Rules, RulesError

    if value is not None:
        try:
            Rules.from_spec(value)
        except RulesError as error:
            raise typer.BadParameter(str(error)) from None
    return value


def bot_level(value: str) -> str:
    """Check a ``--level`` value as it is parsed: one of the bot levels (case aside), else
    ``Invalid value for '--level': …`` listing them."""
    from kseri.agents import AGENTS

    level = value.lower()
    if level not in AGENTS:
        raise typer.BadParameter(f"unknown bot level {value!r}; the levels are: {', '.join(AGENTS)}")
    return level


def ray_option() -> Any:
    """The ``--ray [ADDRESS]`` option of the commands that can play on a Ray cluster."""
    return typer.Option(
        "--ray", metavar="[ADDRESS]",
        help="Play on a Ray cluster: its head's HOST:PORT, or nothing (or 'local') for one of this machine "
             "(needs kseri[cluster]).")


class RayOptionCommand(TyperCommand):
    """A command whose ``--ray`` may come without its address, meaning ``local``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's own click Context
        given: list[str] = []
        for index, arg in enumerate(args):
            given.append(arg)
            if arg == "--":
                given += args[index + 1:]
                break
            if arg == "--ray" and (index + 1 == len(args) or args[index + 1].startswith("-")):
                given.append("local")
        return super().parse_args(ctx, given)


def check_workers(workers: int, ray: str | None) -> None:
    """Refuse (``ValueError``) a negative ``--workers``, or one given with ``--ray``."""
    if workers < 0:
        raise ValueError(f"workers must be 0 (one per core) or more, not {workers}")
    if workers and ray is not None:
        raise ValueError("give --workers (local processes) or --ray (a cluster's CPUs), not both")


Outcome = TypeVar("Outcome")


def run_on_executor(label: str, unit: str, total: int, workers: int, ray: str | None,
                    run: Callable[[Executor, Callable[[int], None]], Outcome]) -> Outcome:
    """``run`` on this machine's processes (``workers``, 0: one per core) or a Ray cluster
    (``ray``), with a progress bar of ``total`` ``unit`` on :data:`errors`; a cluster's failure
    is said there and exits with status 2."""
    local = workers or os.cpu_count() or 1
    executor: Executor = RayCluster(ray) if ray is not None else local_executor(local)
    try:
        with executor, Progress(
            TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), console=errors,
        ) as progress:
            bar = progress.add_task(unit, total=total)
            return run(executor, lambda done: progress.advance(bar, done))
    except ClusterError as error:
        errors.print(f"[red]error:[/red] {escape(str(error))}")
        raise typer.Exit(2) from None

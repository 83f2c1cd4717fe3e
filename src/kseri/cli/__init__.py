"""The ``kseri`` command: one Typer app (:mod:`kseri.cli.command`), one module per group of
commands, each registering its commands on the app as it is imported."""

from __future__ import annotations

from kseri.cli import (  # noqa: F401
    admin_cmd,
    analyse_cmd,
    backup_cmd,
    bench_cmd,
    gauntlet_cmd,
    learn_cmd,
    play_cmd,
    puzzles_cmd,
    records_cmd,
    rules_cmd,
    serve_cmd,
    trainer_cmd,
)
from kseri.cli.command import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``kseri`` console script."""
    app()

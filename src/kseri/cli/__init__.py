"""The ``kseri`` command: one Typer app, one module per group of commands."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="kseri",
    help="Kseri (Ξερή): play, simulate, replay and serve the Greek card game and its family.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Kseri (Ξερή): play, simulate, replay and serve the Greek card game and its family."""


def main() -> None:
    """Entry point of the ``kseri`` console script."""
    app()


# Each command module registers its commands on ``app``.
from kseri.cli import analyse_cmd, bench_cmd, play_cmd, records_cmd, rules_cmd, serve_cmd  # noqa: E402,F401

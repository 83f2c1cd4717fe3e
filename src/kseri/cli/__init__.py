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


from kseri.cli import (  # noqa: E402  (registers commands on ``app``)
    play_cmd,  # noqa: F401
    rules_cmd,  # noqa: F401
)

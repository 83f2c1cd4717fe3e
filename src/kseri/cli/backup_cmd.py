"""``kseri backup`` and ``kseri restore``: copy a server's database while it runs, and bring a
copy back, checked (``server/backup.py``, docs/deployment.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kseri.cli.command import app

DB_HELP = ("Database URL, e.g. postgresql+asyncpg://user@host/kseri (default: $KSERI_DATABASE_URL, "
           "else SQLite in the user's data folder, as kseri serve).")


def _say(line: str) -> None:
    typer.echo(line, err=True)


@app.command("backup")
def backup_command(
    path: Annotated[Path, typer.Argument(help="The new file to write the backup to.")],
    db: str = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Copy the server's database to PATH, consistently, while the server runs (SQLite's
    backup API, or pg_dump for PostgreSQL)."""
    import asyncio

    from kseri.server.backup import BackupError, backup
    from kseri.server.settings import default_database_url

    try:
        asyncio.run(backup(db or default_database_url(), path, _say))
    except BackupError as error:
        typer.echo(f"kseri backup: {error}", err=True)
        raise typer.Exit(1) from None


@app.command("restore")
def restore_command(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A backup made by kseri backup.")],
    db: str = typer.Option(None, "--db", help=DB_HELP),
    replace: bool = typer.Option(False, "--replace", help="Replace a database that holds games or accounts."),
) -> None:
    """Restore a backup into a database no server is using (refused otherwise), migrate it, and
    check it: every table replays, every finished game's record verifies, accounts and ratings
    are whole. Exits with 1 when anything is wrong, listing it."""
    import asyncio

    from kseri.server.backup import BackupError, restore
    from kseri.server.settings import default_database_url

    try:
        found = asyncio.run(restore(path, db or default_database_url(), replace=replace, progress=_say))
    except BackupError as error:
        typer.echo(f"kseri restore: {error}", err=True)
        raise typer.Exit(1) from None
    for problem in found.problems:
        typer.echo(f"problem: {problem}")
    typer.echo(f"restored: {found.summary()}")
    if found.problems:
        raise typer.Exit(1)

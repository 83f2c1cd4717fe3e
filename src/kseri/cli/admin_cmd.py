"""``kseri admin``: moderation on the server's machine, for an operator without the web page
(``server/moderation.py``): grant the moderator role, list reports, ban, unban, refund a banned
player's opponents (``server/refunds.py``), rename, and read the log of actions. It works while
the server runs (short transactions of its own)."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from kseri.cli.command import app

if TYPE_CHECKING:
    from kseri.server.db import Store

admin = typer.Typer(name="admin", no_args_is_help=True, rich_markup_mode=None,
                    help="Moderation on the server's machine: moderators, reports, bans, refunds, renames.")
app.add_typer(admin)

Answer = TypeVar("Answer")
DbOption = Annotated[str | None, typer.Option(
    "--db", help="Database URL (default: $KSERI_DATABASE_URL, else SQLite in the user's data folder, "
    "as kseri serve).")]
ReasonOption = Annotated[str, typer.Option("--reason", help="Why (logged; a banned player is shown it).")]


def _run(url: str | None, work: Callable[[Store], Awaitable[Answer]]) -> Answer:
    """Run ``work`` on the database, reporting a refusal as ``kseri admin: …`` (status 1)."""
    from sqlalchemy import inspect
    from sqlalchemy.ext.asyncio import create_async_engine

    from kseri.server.db import Store
    from kseri.server.moderation import ModerationError
    from kseri.server.settings import default_database_url

    database = url or default_database_url()

    async def run() -> Answer:
        waits = {"timeout": 10} if database.startswith("sqlite") else {}  # while the server writes
        engine = create_async_engine(database, connect_args=waits)
        try:
            async with engine.connect() as connection:
                ready = await connection.run_sync(lambda sync: inspect(sync).has_table("moderation_actions"))
            if not ready:
                raise ModerationError("old-schema", "this database has no moderation tables yet: start kseri "
                                                    "serve on it once (it migrates the schema)")
            return await work(Store(engine))
        finally:
            await engine.dispose()

    try:
        return asyncio.run(run())
    except ModerationError as error:
        typer.echo(f"kseri admin: {error}", err=True)
        raise typer.Exit(1) from None


def _when(at: float) -> str:
    return datetime.datetime.fromtimestamp(at, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


@admin.command("grant-moderator")
def grant_moderator_command(name: str, db: DbOption = None,
                            reason: ReasonOption = "granted on the server's machine") -> None:
    """Give the account NAME the moderator role."""
    from kseri.server.moderation import grant_moderator

    granted = _run(db, lambda store: grant_moderator(store, name, reason))
    typer.echo(f"{granted.username} is a moderator")


@admin.command("list-reports")
def list_reports_command(db: DbOption = None) -> None:
    """The reports not yet closed, oldest first."""
    from kseri.server.moderation import open_reports

    found = _run(db, open_reports)
    for entry in found:
        where = f" at table {entry['table']}" if entry["table"] else ""
        note = f": {entry['note']}" if entry["note"] else ""
        typer.echo(f"{entry['id']}  {_when(entry['created'])}  {entry['reporter']} reports "
                   f"{entry['reported']} for {entry['reason']}{where}{note}")
    typer.echo(f"{len(found)} open reports")


@admin.command("ban")
def ban_command(name: str, reason: ReasonOption, db: DbOption = None,
                rated: Annotated[bool, typer.Option("--rated", help="From rated play only.")] = False,
                days: Annotated[float | None, typer.Option(min=0, help="For this many days (default: until "
                                                           "lifted).")] = None) -> None:
    """Ban the account NAME (from rated play only, with --rated)."""
    import time

    from kseri.server.moderation import sanction

    kind = "rated-ban" if rated else "ban"
    until = None if days is None else time.time() + days * 86400
    banned = _run(db, lambda store: sanction(store, name, kind, reason, until=until))
    ending = "until lifted" if until is None else f"until {_when(until)}"
    typer.echo(f"{banned.username}: {kind} {ending}")


@admin.command("unban")
def unban_command(name: str, reason: ReasonOption, db: DbOption = None,
                  rated: Annotated[bool, typer.Option("--rated", help="Lift a ban from rated play.")] = False,
                  ) -> None:
    """Lift the ban on the account NAME."""
    from kseri.server.moderation import lift

    kind = "rated-ban" if rated else "ban"
    lifted = _run(db, lambda store: lift(store, name, kind, reason))
    typer.echo(f"{lifted.username}: {kind} lifted")


@admin.command("refund")
def refund_command(name: str, reason: ReasonOption, db: DbOption = None,
                   games: Annotated[int, typer.Option(min=1, help="The latest rated games to annul.")] = 40,
                   ) -> None:
    """Annul the account NAME's latest rated games (banned for unfair play) and give their
    opponents' rating changes back, recomputed from the rated history."""
    from kseri.server.refunds import refund

    done = _run(db, lambda store: refund(store, name, reason, games=games))
    typer.echo(f"{done['username']}: {len(done['games'])} rated games annulled")
    for opponent, changes in sorted(done["refunds"].items()):
        given = ", ".join(f"{family} {change:+.0f}" for family, change in sorted(changes.items()))
        typer.echo(f"  {opponent}: {given}")


@admin.command("rename")
def rename_command(name: str, new_name: str, reason: ReasonOption, db: DbOption = None) -> None:
    """Give the account NAME the username NEW_NAME (at its seats too)."""
    from kseri.server.moderation import rename

    renamed = _run(db, lambda store: rename(store, name, new_name, reason))
    typer.echo(f"{name} is now {renamed.username}")


@admin.command("log")
def log_command(name: Annotated[str | None, typer.Argument(help="Only the actions about this account.")]
                = None, db: DbOption = None) -> None:
    """Every moderation action, newest first: when, by whom, what and why."""
    from kseri.server.moderation import account, log_of

    async def entries(store: Store) -> list[dict[str, Any]]:
        user = None if name is None else (await account(store, name)).id
        return await log_of(store, user)

    for entry in _run(db, entries):
        details = f" {entry['data']}" if entry["data"] else ""
        typer.echo(f"{_when(entry['at'])}  {entry['by']}: {entry['action']} {entry['username'] or ''}"
                   f"{details} because {entry['reason']}")

"""``kseri admin``: moderation on the server's machine, for an operator without the web page
(``server/moderation.py``): grant the moderator role, list reports, ban, unban, refund a banned
player's opponents (``server/refunds.py``), rename, ban guests and addresses (and list and
lift those bans), and read the log of actions. It works while
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
                    help="Moderation on the server's machine: moderators, reports, bans (of accounts, guests "
                    "and addresses), refunds, renames.")
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


DaysOption = Annotated[float | None, typer.Option(min=0, help="For this many days (default: until lifted).")]


def _ending(until: float | None) -> str:
    return "until lifted" if until is None else f"until {_when(until)}"


@admin.command("ban-address")
def ban_address_command(address: str, reason: ReasonOption, db: DbOption = None,
                        days: DaysOption = None) -> None:
    """Ban the address ADDRESS (as the server sees clients, behind its --trusted-proxy): no guest
    session, sign-up, seat or seek from it."""
    import time

    from kseri.server.moderation import ban

    until = None if days is None else time.time() + days * 86400
    banned = _run(db, lambda store: ban(store, "address", address, reason, until=until))
    typer.echo(f"{banned}: banned {_ending(until)}")


@admin.command("unban-address")
def unban_address_command(address: str, reason: ReasonOption, db: DbOption = None) -> None:
    """Lift the ban on the address ADDRESS."""
    from kseri.server.moderation import unban

    lifted = _run(db, lambda store: unban(store, "address", address, reason))
    typer.echo(f"{lifted}: ban lifted")


@admin.command("ban-guest")
def ban_guest_command(table: str, seat: int, reason: ReasonOption, db: DbOption = None,
                      days: DaysOption = None) -> None:
    """Ban the guest who held seat SEAT at table TABLE: no guest session, seat or seek for it."""
    import time

    from kseri.server.moderation import ban_guest

    until = None if days is None else time.time() + days * 86400
    key, name = _run(db, lambda store: ban_guest(store, table, seat, reason, until=until))
    typer.echo(f"{name} ({key}): banned {_ending(until)}")


@admin.command("unban-guest")
def unban_guest_command(key: str, reason: ReasonOption, db: DbOption = None) -> None:
    """Lift the ban on the guest KEY (its identity, as `kseri admin bans` lists it)."""
    from kseri.server.moderation import unban

    lifted = _run(db, lambda store: unban(store, "guest", key, reason))
    typer.echo(f"{lifted}: ban lifted")


@admin.command("bans")
def bans_command(db: DbOption = None) -> None:
    """The bans of guests and addresses in force, newest first."""
    from kseri.server.moderation import bans_in_force

    found = _run(db, bans_in_force)
    for entry in found:
        who = (f"address {entry['key']}" if entry["kind"] == "address"
               else f"guest {entry['key']} ({entry['name']}, seat {entry['seat']} at table {entry['table']})")
        typer.echo(f"{who}  since {_when(entry['since'])}, {_ending(entry['until'])}: {entry['reason']}")
    typer.echo(f"{len(found)} bans of guests and addresses")

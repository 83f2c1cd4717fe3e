"""Moderation's data layer (``server/moderation.py``, migration 0004) and ``kseri admin``, on the
database of a real server while it runs (SQLite and PostgreSQL): the moderator role, reports,
bans, renames and the log of actions; blocks between players."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx
import pytest
from playerkit import Browser
from serverkit import Server
from sqlalchemy.ext.asyncio import create_async_engine

from kseri.server import moderation
from kseri.server.db import Store

Answer = TypeVar("Answer")


def admin(*args: str, database_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kseri", "admin", *args, "--db", database_url],
                          capture_output=True, text=True, timeout=60)


def on_database(database_url: str, work: Callable[[Store], Awaitable[Answer]]) -> Answer:
    """Run ``work`` on the server's database beside the server (no lock taken, as ``kseri admin``)."""
    async def run() -> Answer:
        engine = create_async_engine(database_url)
        try:
            return await work(Store(engine))
        finally:
            await engine.dispose()

    return asyncio.run(run())


def ids(server: Server, *names: str) -> dict[str, str]:
    found = {}
    for name in names:
        browser = Browser(server)
        found[name] = browser.sign_up(name)["id"]
        browser.close()
    return found


def test_kseri_admin_grants_bans_renames_and_logs_on_a_running_server(
        start_server: Callable[..., Server], database_url: str) -> None:
    server = start_server(database_url)
    users = ids(server, "Eleni", "Nikos", "Rude1")

    granted = admin("grant-moderator", "eleni", database_url=database_url)
    assert granted.returncode == 0 and granted.stdout == "Eleni is a moderator\n", granted.stderr
    again = admin("grant-moderator", "Eleni", database_url=database_url)
    assert again.returncode == 1 and "Eleni is a moderator already" in again.stderr
    assert on_database(database_url, lambda store: moderation.is_moderator(store, users["Eleni"]))
    assert not on_database(database_url, lambda store: moderation.is_moderator(store, users["Nikos"]))

    filed = on_database(database_url, lambda store: moderation.report(
        store, users["Nikos"], users["Rude1"], "offensive-name", "look at that name"))
    for reason, note, problem in (("rude", None, "a report's reason is one of cheating, boosting"),
                                  ("other", "x" * 281, "at most 280 characters, not 281")):
        with pytest.raises(moderation.ModerationError, match=problem):
            on_database(database_url, lambda store, r=reason, n=note: moderation.report(  # type: ignore[misc]
                store, users["Nikos"], users["Rude1"], r, n))
    listed = admin("list-reports", database_url=database_url)
    assert listed.returncode == 0
    assert f"{filed}  " in listed.stdout
    assert "Nikos reports Rude1 for offensive-name: look at that name" in listed.stdout
    assert listed.stdout.endswith("1 open reports\n")

    renamed = admin("rename", "Rude1", "Polite", "--reason", "an offensive username",
                    database_url=database_url)
    assert renamed.returncode == 0 and renamed.stdout == "Rude1 is now Polite\n", renamed.stderr
    assert httpx.get(f"{server.http}/api/players/Polite", timeout=10).status_code == 200
    assert httpx.get(f"{server.http}/api/players/Rude1", timeout=10).status_code == 404
    taken = admin("rename", "Polite", "nikos", "--reason", "x", database_url=database_url)
    assert taken.returncode == 1 and "the username 'nikos' is taken" in taken.stderr

    banned = admin("ban", "polite", "--reason", "abuse at table talk", database_url=database_url)
    assert banned.returncode == 0 and banned.stdout == "Polite: ban until lifted\n"
    rated = admin("ban", "Polite", "--rated", "--days", "7", "--reason", "boosting",
                  database_url=database_url)
    assert rated.returncode == 0 and rated.stdout.startswith("Polite: rated-ban until ")
    now = on_database(database_url, lambda store: moderation.sanctions_of(store, users["Rude1"]))
    assert {kind: entry["reason"] for kind, entry in now.items()} == {
        "ban": "abuse at table talk", "rated-ban": "boosting"}
    in_eight_days = on_database(database_url, lambda store: moderation.sanctions_of(
        store, users["Rude1"], at=now["rated-ban"]["since"] + 8 * 86400))
    assert set(in_eight_days) == {"ban"}
    lifted = admin("unban", "Polite", "--reason", "appeal heard", database_url=database_url)
    assert lifted.returncode == 0 and lifted.stdout == "Polite: ban lifted\n"
    twice = admin("unban", "Polite", "--reason", "appeal heard", database_url=database_url)
    assert twice.returncode == 1 and "Polite is under no ban" in twice.stderr
    no_reason = admin("ban", "Polite", "--reason", "  ", database_url=database_url)
    assert no_reason.returncode == 1 and "every moderation action needs a reason" in no_reason.stderr
    nobody = admin("ban", "Ghost", "--reason", "x", database_url=database_url)
    assert nobody.returncode == 1 and "there is no account called 'Ghost'" in nobody.stderr

    log = admin("log", "Polite", database_url=database_url).stdout.splitlines()
    assert [line.split("  ", 1)[1] for line in log] == [
        "the operator: unban Polite because appeal heard",
        f"the operator: rated-ban Polite {{'until': {now['rated-ban']['until']!r}}} because boosting",
        "the operator: ban Polite {'until': None} because abuse at table talk",
        "the operator: rename Polite {'from': 'Rude1', 'to': 'Polite'} because an offensive username",
    ]
    everything = on_database(database_url, lambda store: moderation.log_of(store))
    assert [entry["action"] for entry in everything][-1] == "grant-moderator"

    on_database(database_url, lambda store: moderation.close_report(store, filed, users["Eleni"], "renamed"))
    assert admin("list-reports", database_url=database_url).stdout == "0 open reports\n"
    closing = on_database(database_url, lambda store: moderation.log_of(store, users["Rude1"]))[0]
    assert (closing["by"], closing["action"], closing["data"]) == ("Eleni", "close-report", {"report": filed})


def test_blocks_are_kept_listed_and_undone(start_server: Callable[..., Server], sqlite_url: str) -> None:
    server = start_server(sqlite_url)
    users = ids(server, "Eleni", "Nikos", "Maria")

    async def work(store: Store) -> None:
        await moderation.block(store, users["Eleni"], users["Nikos"])
        await moderation.block(store, users["Eleni"], users["Nikos"])  # again: nothing changes
        await moderation.block(store, users["Eleni"], users["Maria"])
        assert [a.username for a in await moderation.blocked_by(store, users["Eleni"])] == ["Maria", "Nikos"]
        assert await moderation.either_blocks(store, users["Nikos"], users["Eleni"])
        assert not await moderation.either_blocks(store, users["Nikos"], users["Maria"])
        await moderation.unblock(store, users["Eleni"], users["Nikos"])
        assert not await moderation.either_blocks(store, users["Eleni"], users["Nikos"])
        with pytest.raises(moderation.ModerationError, match="you cannot block yourself"):
            await moderation.block(store, users["Maria"], users["Maria"])

    on_database(sqlite_url, work)


def test_kseri_admin_on_a_database_not_yet_migrated_says_so(tmp_path: object, sqlite_url: str) -> None:
    import sqlite3

    sqlite3.connect(sqlite_url.split("///", 1)[1]).close()
    refused = admin("list-reports", database_url=sqlite_url)
    assert refused.returncode == 1
    assert "this database has no moderation tables yet: start kseri serve on it once" in refused.stderr

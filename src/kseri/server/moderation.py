"""Moderation's data: blocks between players, reports, moderators, sanctions in force and the
log of every moderation action (who, when, why), over the server's database (migration 0004).

Every action is logged in ``moderation_actions`` with its moderator (``None``: the operator,
on the server's machine with ``kseri admin``), its target, its reason and its details; the
sanctions in force (``sanctions``) point to the action that imposed them. Nothing here is
automatic: fair-play signals (``server/fairplay.py``) only tell moderators where to look.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Literal, get_args

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from kseri.server import db
from kseri.server.accounts import AccountError, check_username, username_key, users

ReportReason = Literal["cheating", "boosting", "sandbagging", "abuse", "offensive-name", "stalling", "other"]
"""Why a player may be reported (a fixed list: no free text but the short note)."""
REPORT_REASONS: tuple[str, ...] = get_args(ReportReason)
NOTE_LENGTH = 280
"""The longest note a report may carry."""
SanctionKind = Literal["mute", "rated-ban", "ban"]
"""A sanction in force: table talk muted, banned from rated play, banned."""
SANCTIONS: tuple[str, ...] = get_args(SanctionKind)
OPERATOR = "the operator"
"""Who an action taken on the server's machine (``kseri admin``) is shown as taken by."""

blocks = Table(
    "blocks", db.metadata,
    Column("user_id", String(24), ForeignKey("users.id"), primary_key=True),
    Column("blocked_id", String(24), ForeignKey("users.id"), primary_key=True),
    Column("created", Float, nullable=False),
)
reports = Table(
    "reports", db.metadata,
    Column("id", String(24), primary_key=True),
    Column("reporter_id", String(24), ForeignKey("users.id"), nullable=False),
    Column("reported_id", String(24), ForeignKey("users.id"), nullable=False, index=True),
    Column("table_id", String(40), ForeignKey("tables.id"), nullable=True),
    Column("reason", String(24), nullable=False),
    Column("note", String(NOTE_LENGTH), nullable=True),
    Column("created", Float, nullable=False),
    Column("closed", Float, nullable=True, index=True),
    Column("closed_by", String(24), nullable=True),
)
moderators = Table(
    "moderators", db.metadata,
    Column("user_id", String(24), ForeignKey("users.id"), primary_key=True),
    Column("granted", Float, nullable=False),
)
actions = Table(
    "moderation_actions", db.metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("moderator_id", String(24), nullable=True),
    Column("user_id", String(24), nullable=True, index=True),
    Column("action", String(24), nullable=False),
    Column("reason", Text, nullable=False),
    Column("data", Text, nullable=True),
)
sanctions = Table(
    "sanctions", db.metadata,
    Column("user_id", String(24), ForeignKey("users.id"), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("since", Float, nullable=False),
    Column("until", Float, nullable=True),
    Column("action_id", Integer, ForeignKey("moderation_actions.id"), nullable=False),
)


STATUSES = {"unknown-player": 404, "unknown-report": 404, "unknown-table": 404, "no-reason": 422,
            "bad-reason": 422, "too-long": 422, "bad-username": 422, "bad-sanction": 422, "bad-action": 422,
            "blocked": 403, "banned": 403, "rated-banned": 403, "not-moderator": 403, "throttled": 429}
"""The HTTP status each refusal is answered with (others: 409)."""
REPORTS_PER_DAY = 10
"""Reports one account may file in a day (a player cannot flood the queue)."""
WARNINGS_SHOWN = 30 * 86400
"""Seconds a warning is shown to its player."""

ABOUT_AN_ACCOUNT = (blocks.c.user_id, blocks.c.blocked_id, reports.c.reporter_id, reports.c.reported_id,
                    moderators.c.user_id, sanctions.c.user_id)
"""The rows that go with a deleted account (the log of actions stays)."""


class ModerationError(Exception):
    """A moderation request refused; the message says why, in one sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def status(self) -> int:
        """The HTTP status the refusal is answered with."""
        return STATUSES.get(self.code, 409)


@dataclass(frozen=True, slots=True)
class Account:
    """An account as moderation names it."""

    id: str
    username: str


async def account(store: db.Store, username: str) -> Account:
    """The account called ``username`` (case and width aside), or :class:`ModerationError`."""
    async with store.engine.connect() as connection:
        row = (await connection.execute(select(users.c.id, users.c.username)
                                        .where(users.c.username_key == username_key(username)))).first()
    if row is None:
        raise ModerationError("unknown-player", f"there is no account called {username!r}")
    return Account(row[0], row[1])


def _reason(reason: str) -> str:
    text = reason.strip()
    if not text:
        raise ModerationError("no-reason", "every moderation action needs a reason")
    return text


async def log_action(connection: AsyncConnection, moderator: str | None, target: str | None, action: str,
                     reason: str, data: dict[str, Any] | None = None) -> int:
    """Log one moderation action in ``connection``'s transaction; its id."""
    result = await connection.execute(insert(actions).values(
        at=time.time(), moderator_id=moderator, user_id=target, action=action, reason=reason,
        data=None if data is None else json.dumps(data, sort_keys=True)))
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


# -- players protect themselves ------------------------------------------------------------------

async def block(store: db.Store, user_id: str, blocked_id: str) -> None:
    """``user_id`` blocks ``blocked_id`` (blocking again changes nothing)."""
    if user_id == blocked_id:
        raise ModerationError("self", "you cannot block yourself")
    async with store.engine.begin() as connection:
        present = await connection.scalar(select(blocks.c.created).where(
            blocks.c.user_id == user_id, blocks.c.blocked_id == blocked_id))
        if present is None:
            await connection.execute(insert(blocks).values(user_id=user_id, blocked_id=blocked_id,
                                                           created=time.time()))


async def unblock(store: db.Store, user_id: str, blocked_id: str) -> None:
    """Undo a block (none: nothing happens)."""
    async with store.engine.begin() as connection:
        await connection.execute(delete(blocks).where(blocks.c.user_id == user_id,
                                                      blocks.c.blocked_id == blocked_id))


async def blocked_by(store: db.Store, user_id: str) -> list[Account]:
    """The accounts ``user_id`` blocks, by name."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(
            select(users.c.id, users.c.username).join(blocks, blocks.c.blocked_id == users.c.id)
            .where(blocks.c.user_id == user_id).order_by(users.c.username_key))).all()
    return [Account(row[0], row[1]) for row in rows]


async def either_blocks(store: db.Store, first: str, second: str) -> bool:
    """Whether either of two accounts blocks the other (they may not meet)."""
    return bool(await blocked_pairs(store, [first, second]))


async def blocked_pairs(store: db.Store, user_ids: list[str]) -> set[frozenset[str]]:
    """The pairs among ``user_ids`` where one blocks the other (they may not meet)."""
    if len(user_ids) < 2:
        return set()
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(blocks.c.user_id, blocks.c.blocked_id).where(
            blocks.c.user_id.in_(user_ids), blocks.c.blocked_id.in_(user_ids)))).all()
    return {frozenset(row) for row in rows}


async def check_may_meet(store: db.Store, user_id: str, others: list[str]) -> None:
    """Refuse (``blocked``) when ``user_id`` blocks, or is blocked by, any of ``others``: the check
    before a quick game's acceptance, a join, a spectator's connection or a challenge (a
    challenge between two accounts calls ``check_may_meet(store, challenger, [challenged])``)."""
    found = await blocked_pairs(store, [user_id, *[other for other in others if other != user_id]])
    if any(user_id in pair for pair in found):
        raise ModerationError("blocked", "you cannot play or watch this player: one of you blocks the other")


async def check_may_watch(store: db.Store, user_id: str, table_id: str) -> None:
    """Refuse (``blocked``) a spectator whom an account seated at the table blocks, or who blocks
    one (a player seated there is never refused)."""
    async with store.engine.connect() as connection:
        seated = set((await connection.scalars(select(db.seats.c.user_id).where(
            db.seats.c.table_id == table_id, db.seats.c.user_id.is_not(None)))).all())
    if user_id not in seated:
        await check_may_meet(store, user_id, sorted(seated))


async def muted(store: db.Store, user_id: str) -> bool:
    """Whether the account's table talk is muted (a moderator's ``mute`` in force): the table
    talk's senders ask this before passing a phrase on."""
    return "mute" in await sanctions_of(store, user_id)


async def check_may_play(store: db.Store, user_id: str, rated: bool) -> None:
    """Refuse (``banned``, ``rated-banned``) a banned account a seat, or a rated one a rated game,
    saying why (the moderator's reason)."""
    found = await sanctions_of(store, user_id)
    for kind, code, what in (("ban", "banned", "you are banned"),
                             ("rated-ban", "rated-banned", "you are banned from rated games")):
        if kind in found and (kind == "ban" or rated):
            entry = found[kind]
            until = entry["until"]
            ending = "" if until is None else time.strftime(" until %Y-%m-%d %H:%M UTC", time.gmtime(until))
            raise ModerationError(code, f"{what}{ending}: {entry['reason']}")


async def report(store: db.Store, reporter_id: str, reported_id: str, reason: str, note: str | None = None,
                 table_id: str | None = None) -> str:
    """File a report; its id. A report from a game names its table, where the reported player
    held a seat; an account files at most :data:`REPORTS_PER_DAY` a day."""
    if reason not in REPORT_REASONS:
        raise ModerationError("bad-reason", f"a report's reason is one of {', '.join(REPORT_REASONS)}, "
                                            f"not {reason!r}")
    if note is not None and len(note) > NOTE_LENGTH:
        raise ModerationError("too-long", f"a report's note has at most {NOTE_LENGTH} characters, "
                                          f"not {len(note)}")
    if reporter_id == reported_id:
        raise ModerationError("self", "you cannot report yourself")
    report_id = secrets.token_hex(12)
    async with store.engine.begin() as connection:
        filed = await connection.scalar(select(func.count()).select_from(reports).where(
            reports.c.reporter_id == reporter_id, reports.c.created > time.time() - 86400))
        if (filed or 0) >= REPORTS_PER_DAY:
            raise ModerationError("throttled", f"at most {REPORTS_PER_DAY} reports a day from one account")
        if table_id is not None:
            seated = await connection.scalar(select(db.seats.c.seat).where(
                db.seats.c.table_id == table_id, db.seats.c.user_id == reported_id).limit(1))
            if seated is None:
                raise ModerationError("unknown-table",
                                      f"the reported player held no seat at table {table_id!r}")
        await connection.execute(insert(reports).values(
            id=report_id, reporter_id=reporter_id, reported_id=reported_id, table_id=table_id, reason=reason,
            note=note or None, created=time.time()))
    return report_id


async def open_reports(store: db.Store) -> list[dict[str, Any]]:
    """The reports not yet closed, oldest first, with the players' names."""
    reporter = users.alias("reporter")
    reported = users.alias("reported")
    async with store.engine.connect() as connection:
        rows = (await connection.execute(
            select(reports, reporter.c.username.label("reporter"), reported.c.username.label("reported"))
            .join(reporter, reporter.c.id == reports.c.reporter_id)
            .join(reported, reported.c.id == reports.c.reported_id)
            .where(reports.c.closed.is_(None)).order_by(reports.c.created))).mappings().all()
    return [{"id": r["id"], "created": r["created"], "reporter": r["reporter"], "reported": r["reported"],
             "reason": r["reason"], "note": r["note"], "table": r["table_id"]} for r in rows]


async def reports_about(store: db.Store, user_id: str) -> list[dict[str, Any]]:
    """Every report about an account, newest first (open or closed), with the reporter's name."""
    reporter = users.alias("reporter")
    async with store.engine.connect() as connection:
        rows = (await connection.execute(
            select(reports, reporter.c.username.label("reporter"))
            .join(reporter, reporter.c.id == reports.c.reporter_id)
            .where(reports.c.reported_id == user_id).order_by(reports.c.created.desc()))).mappings().all()
    return [{"id": r["id"], "created": r["created"], "reporter": r["reporter"], "reason": r["reason"],
             "note": r["note"], "table": r["table_id"], "closed": r["closed"]} for r in rows]


async def close_report(store: db.Store, report_id: str, moderator_id: str | None, reason: str) -> None:
    """Close a report, saying why (logged)."""
    why = _reason(reason)
    async with store.engine.begin() as connection:
        row = (await connection.execute(select(reports.c.reported_id, reports.c.closed)
                                        .where(reports.c.id == report_id))).first()
        if row is None:
            raise ModerationError("unknown-report", f"there is no report {report_id}")
        if row[1] is not None:
            raise ModerationError("closed", f"the report {report_id} is closed already")
        await connection.execute(update(reports).where(reports.c.id == report_id)
                                 .values(closed=time.time(), closed_by=moderator_id))
        await log_action(connection, moderator_id, row[0], "close-report", why, {"report": report_id})


# -- moderators act ------------------------------------------------------------------------------

async def is_moderator(store: db.Store, user_id: str) -> bool:
    """Whether the account holds the moderator role."""
    async with store.engine.connect() as connection:
        return await connection.scalar(select(moderators.c.granted).where(moderators.c.user_id == user_id)) \
            is not None


async def grant_moderator(store: db.Store, username: str, reason: str, by: str | None = None) -> Account:
    """Give an account the moderator role (logged)."""
    why = _reason(reason)
    target = await account(store, username)
    if await is_moderator(store, target.id):
        raise ModerationError("already", f"{target.username} is a moderator already")
    async with store.engine.begin() as connection:
        await connection.execute(insert(moderators).values(user_id=target.id, granted=time.time()))
        await log_action(connection, by, target.id, "grant-moderator", why)
    return target


async def sanction(store: db.Store, username: str, kind: str, reason: str, by: str | None = None,
                   until: float | None = None) -> Account:
    """Mute, ban from rated play or ban an account (``until``: UNIX time it ends; ``None``:
    until lifted). Logged; the reason is what the player is shown."""
    if kind not in SANCTIONS:
        raise ModerationError("bad-sanction", f"a sanction is one of {', '.join(SANCTIONS)}, not {kind!r}")
    why = _reason(reason)
    target = await account(store, username)
    now = time.time()
    async with store.engine.begin() as connection:
        action = await log_action(connection, by, target.id, kind, why, {"until": until})
        await connection.execute(delete(sanctions).where(sanctions.c.user_id == target.id,
                                                         sanctions.c.kind == kind))
        await connection.execute(insert(sanctions).values(user_id=target.id, kind=kind, since=now,
                                                          until=until, action_id=action))
    return target


async def lift(store: db.Store, username: str, kind: str, reason: str, by: str | None = None) -> Account:
    """Lift a sanction in force (logged as ``un`` + its kind: ``unban``, ``unmute``…)."""
    why = _reason(reason)
    target = await account(store, username)
    async with store.engine.begin() as connection:
        removed = await connection.execute(delete(sanctions).where(sanctions.c.user_id == target.id,
                                                                   sanctions.c.kind == kind))
        if removed.rowcount == 0:
            raise ModerationError("not-sanctioned", f"{target.username} is under no {kind}")
        await log_action(connection, by, target.id, f"un{kind}", why)
    return target


async def sanctions_of(store: db.Store, user_id: str, at: float | None = None) -> dict[str, dict[str, Any]]:
    """The sanctions in force on an account (at ``at``, now by default), each with its reason."""
    moment = time.time() if at is None else at
    async with store.engine.connect() as connection:
        rows = (await connection.execute(
            select(sanctions.c.kind, sanctions.c.since, sanctions.c.until, actions.c.reason)
            .join(actions, actions.c.id == sanctions.c.action_id)
            .where(sanctions.c.user_id == user_id))).all()
    return {kind: {"since": since, "until": until, "reason": reason}
            for kind, since, until, reason in rows if until is None or until > moment}


async def warn(store: db.Store, username: str, reason: str, by: str | None = None) -> Account:
    """Warn an account (logged; the player is shown the reason for :data:`WARNINGS_SHOWN`)."""
    why = _reason(reason)
    target = await account(store, username)
    async with store.engine.begin() as connection:
        await log_action(connection, by, target.id, "warn", why)
    return target


async def standing(store: db.Store, user_id: str) -> dict[str, Any]:
    """What an account is told of moderation about it: the sanctions in force (with their
    reasons), the warnings of the last :data:`WARNINGS_SHOWN` seconds, and whether it moderates."""
    since = time.time() - WARNINGS_SHOWN
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(actions.c.at, actions.c.reason).where(
            actions.c.user_id == user_id, actions.c.action == "warn", actions.c.at >= since)
            .order_by(actions.c.at.desc()))).all()
    return {"sanctions": await sanctions_of(store, user_id),
            "warnings": [{"at": at, "reason": reason} for at, reason in rows],
            "moderator": await is_moderator(store, user_id)}


async def close_table(store: db.Store, table_id: str, reason: str, by: str | None = None) -> None:
    """Log a table closed by a moderator (the registry removes it: ``api/moderation.py``)."""
    why = _reason(reason)
    async with store.engine.begin() as connection:
        await log_action(connection, by, None, "close-table", why, {"table": table_id})


async def rename(store: db.Store, username: str, new_name: str, reason: str,
                 by: str | None = None) -> Account:
    """Give an account another username (an offensive one replaced), at its seats too. Logged
    with the old name."""
    why = _reason(reason)
    target = await account(store, username)
    try:
        name = check_username(new_name)
    except AccountError as error:
        raise ModerationError("bad-username", str(error.args[-1])) from None
    async with store.engine.begin() as connection:
        taken = await connection.scalar(select(users.c.id).where(users.c.username_key == username_key(name)))
        if taken is not None and taken != target.id:
            raise ModerationError("taken", f"the username {name!r} is taken")
        await connection.execute(update(users).where(users.c.id == target.id)
                                 .values(username=name, username_key=username_key(name)))
        await connection.execute(update(db.seats).where(db.seats.c.user_id == target.id).values(name=name))
        await log_action(connection, by, target.id, "rename", why, {"from": target.username, "to": name})
    return Account(target.id, name)


async def log_of(store: db.Store, user_id: str | None = None) -> list[dict[str, Any]]:
    """Moderation actions, newest first (``user_id``: those about one account), each with who
    took it (the operator for ``kseri admin``), when and why, and the account's name now."""
    moderator, target = users.alias("moderator"), users.alias("target")
    query = (select(actions, moderator.c.username.label("by"), target.c.username.label("username"))
             .outerjoin(moderator, moderator.c.id == actions.c.moderator_id)
             .outerjoin(target, target.c.id == actions.c.user_id)
             .order_by(actions.c.id.desc()))
    if user_id is not None:
        query = query.where(actions.c.user_id == user_id)
    async with store.engine.connect() as connection:
        rows = (await connection.execute(query)).mappings().all()
    return [{"at": r["at"], "by": r["by"] or OPERATOR, "user": r["user_id"], "username": r["username"],
             "action": r["action"],
             "reason": r["reason"], "data": None if r["data"] is None else json.loads(r["data"])}
            for r in rows]

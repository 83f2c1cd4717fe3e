"""Moderation's data: blocks between players, reports, moderators, sanctions in force and the
log of every moderation action (who, when, why), over the server's database (migration 0004);
blocks and bans of guests, address bans and the log of quick-game seeks (migration 0011).

Whoever moderation names is an account's id or a guest's identity (``server/guests.py``):
an account blocks either, and the checks before a meeting (:func:`check_may_meet`,
:func:`check_may_watch`) read both. A ban of a guest or of an address (:func:`ban`) refuses
new guest sessions, sign-ups, seats and seeks (:func:`check_admitted`).

Every action is logged in ``moderation_actions`` with its moderator (``None``: the operator,
on the server's machine with ``kseri admin``), its target, its reason and its details; the
sanctions in force (``sanctions``) point to the action that imposed them. Nothing here is
automatic: fair-play signals (``server/fairplay.py``) only tell moderators where to look.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Literal, get_args

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from kseri.server import db
from kseri.server.accounts import AccountError, check_username, username_key, users
from kseri.server.fairplay import Seek, SeekOutcome
from kseri.server.guests import is_guest
from kseri.server.seats import hash_token

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
BanKind = Literal["guest", "address"]
"""What a ban without an account names: a guest (its identity) or an address."""
BAN_KINDS: tuple[str, ...] = get_args(BanKind)
SEEKS_KEPT = 30 * 86400
"""Seconds an account's seeks are kept in the seek log (the seek-spam signal reads them)."""

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
guest_blocks = Table(
    "guest_blocks", db.metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", String(24), ForeignKey("users.id"), nullable=False, index=True),
    Column("guest_id", String(40), nullable=False),
    Column("name", String(80), nullable=True),
    Column("table_id", String(40), nullable=False),
    Column("created", Float, nullable=False),
    UniqueConstraint("user_id", "guest_id", name="guest_blocks_once"),
)
"""The guests each account blocks: the guest's name and the table where they met."""
bans = Table(
    "bans", db.metadata,
    Column("kind", String(8), primary_key=True),
    Column("key", String(64), primary_key=True),
    Column("since", Float, nullable=False),
    Column("until", Float, nullable=True),
    Column("action_id", Integer, ForeignKey("moderation_actions.id"), nullable=False),
)
"""Bans of guests (by identity) and of addresses, each pointing to the action that imposed it."""
seek_log = Table(
    "seek_log", db.metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", String(24), nullable=False),
    Column("at", Float, nullable=False),
    Column("outcome", String(10), nullable=False),
    Index("seek_log_by_user", "user_id", "at"),
)
"""Each account's quick-game seeks of the last :data:`SEEKS_KEPT` seconds: when made, and
whether paired or withdrawn."""


STATUSES = {"unknown-player": 404, "unknown-report": 404, "unknown-table": 404, "no-reason": 422,
            "bad-reason": 422, "too-long": 422, "bad-username": 422, "bad-sanction": 422, "bad-action": 422,
            "blocked": 403, "banned": 403, "not-met": 403, "unknown-seat": 404,
            "unknown-block": 404, "bad-address": 422,
            "rated-banned": 403, "not-moderator": 403, "throttled": 429}
"""The HTTP status each refusal is answered with (others: 409)."""
REPORTS_PER_DAY = 10
"""Reports one account may file in a day (a player cannot flood the queue)."""
WARNINGS_SHOWN = 30 * 86400
"""Seconds a warning is shown to its player."""

ABOUT_AN_ACCOUNT = (blocks.c.user_id, blocks.c.blocked_id, reports.c.reporter_id, reports.c.reported_id,
                    moderators.c.user_id, sanctions.c.user_id, guest_blocks.c.user_id, seek_log.c.user_id)
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
    """The pairs among ``user_ids`` (accounts' ids and guests' identities) where one blocks the
    other (they may not meet)."""
    if len(user_ids) < 2:
        return set()
    accounts = [who for who in user_ids if not is_guest(who)]
    guests = [who for who in user_ids if is_guest(who)]
    async with store.engine.connect() as connection:
        rows = list((await connection.execute(select(blocks.c.user_id, blocks.c.blocked_id).where(
            blocks.c.user_id.in_(accounts), blocks.c.blocked_id.in_(accounts)))).all())
        if accounts and guests:
            rows += (await connection.execute(select(guest_blocks.c.user_id, guest_blocks.c.guest_id).where(
                guest_blocks.c.user_id.in_(accounts), guest_blocks.c.guest_id.in_(guests)))).all()
    return {frozenset(row) for row in rows}


async def check_may_meet(store: db.Store, user_id: str, others: list[str]) -> None:
    """Refuse (``blocked``) when ``user_id`` (an account or a guest) blocks, or is blocked by,
    any of ``others``: the check before a quick game's acceptance, a join, a spectator's
    connection or a challenge (a challenge between two accounts calls
    ``check_may_meet(store, challenger, [challenged])``)."""
    found = await blocked_pairs(store, [user_id, *[other for other in others if other != user_id]])
    if any(user_id in pair for pair in found):
        raise ModerationError("blocked", "you cannot play or watch this player: one of you blocks the other")


async def seated(store: db.Store, table_id: str) -> list[str]:
    """Who holds the seats of a table: each seat's account, else its guest (seats of neither
    left out)."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(db.seats.c.user_id, db.seats.c.guest_id).where(
            db.seats.c.table_id == table_id))).all()
    return [user or guest for user, guest in rows if user or guest]


async def check_may_watch(store: db.Store, user_id: str, table_id: str) -> None:
    """Refuse (``blocked``) a spectator (an account or a guest) whom an account seated at the
    table blocks, or who blocks one or a guest seated there (a player seated there is never
    refused)."""
    found = await seated(store, table_id)
    if user_id not in found:
        await check_may_meet(store, user_id, found)


# -- guests --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SeatHolder:
    """Who held a seat, as a block names them: an account (by ``username``) or a guest."""

    kind: Literal["account", "guest"]
    name: str


async def block_seat(store: db.Store, user_id: str, table_id: str, seat: int,
                     token: str | None = None) -> SeatHolder:
    """``user_id`` blocks whoever held ``seat`` at ``table_id``: its account, or its guest. They
    met there: the account holds a seat at the table, or ``token`` is one of its seats'."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(
            db.seats.c.seat, db.seats.c.user_id, db.seats.c.guest_id, db.seats.c.name, db.seats.c.token_hash)
            .where(db.seats.c.table_id == table_id))).all()
    if not rows:
        raise ModerationError("unknown-table", f"there is no table {table_id!r}")
    digest = None if token is None else hash_token(token)
    mine = [row for row in rows if row.user_id == user_id or (
        digest is not None and row.token_hash is not None and hmac.compare_digest(row.token_hash, digest))]
    if not mine:
        raise ModerationError("not-met", "you can block only a player you met: hold a seat at that table")
    target = next((row for row in rows if row.seat == seat), None)
    if target is None:
        raise ModerationError("unknown-seat", f"table {table_id!r} has no seat {seat}")
    if target in mine:
        raise ModerationError("self", "you cannot block yourself")
    if target.user_id is not None:
        await block(store, user_id, target.user_id)
        named = await username_of(store, target.user_id)
        return SeatHolder("account", named)
    if target.guest_id is None:
        raise ModerationError("no-player", f"no player known to the server held seat {seat} (a bot, or "
                                           "nobody yet)")
    async with store.engine.begin() as connection:
        present = await connection.scalar(select(guest_blocks.c.id).where(
            guest_blocks.c.user_id == user_id, guest_blocks.c.guest_id == target.guest_id))
        if present is None:
            await connection.execute(insert(guest_blocks).values(
                user_id=user_id, guest_id=target.guest_id, name=target.name, table_id=table_id,
                created=time.time()))
    return SeatHolder("guest", target.name or "Guest")


async def username_of(store: db.Store, user_id: str) -> str:
    """An account's username by its id."""
    async with store.engine.connect() as connection:
        name = await connection.scalar(select(users.c.username).where(users.c.id == user_id))
    return str(name)


async def guest_blocks_of(store: db.Store, user_id: str) -> list[dict[str, Any]]:
    """The guests ``user_id`` blocks, newest first: each block's ``id`` (to undo it), the
    guest's name and the table where they met (the guest's identity is not shown)."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(guest_blocks).where(guest_blocks.c.user_id == user_id)
                                         .order_by(guest_blocks.c.id.desc()))).mappings().all()
    return [{"id": r["id"], "name": r["name"] or "Guest", "table": r["table_id"], "created": r["created"]}
            for r in rows]


async def unblock_guest(store: db.Store, user_id: str, block_id: int) -> None:
    """Undo one of ``user_id``'s blocks of a guest (``unknown-block`` when it has none such)."""
    async with store.engine.begin() as connection:
        removed = await connection.execute(delete(guest_blocks).where(
            guest_blocks.c.user_id == user_id, guest_blocks.c.id == block_id))
    if removed.rowcount == 0:
        raise ModerationError("unknown-block", f"you block no guest under {block_id}")


def _address(address: str) -> str:
    """An address as bans key it (the compressed form of an IP address)."""
    try:
        return ipaddress.ip_address(address.strip()).compressed
    except ValueError:
        raise ModerationError("bad-address", f"{address!r} is not an IP address") from None


def _until(until: float | None) -> str:
    return "" if until is None else time.strftime(" until %Y-%m-%d %H:%M UTC", time.gmtime(until))


async def check_admitted(store: db.Store, address: str, guest: str | None = None) -> None:
    """Refuse (``banned``) a request from a banned address, or from a banned guest, saying why and
    until when: the check before a guest session, a sign-up, a seat or a seek."""
    keys = [and_(bans.c.kind == "guest", bans.c.key == guest)] if guest else []
    with contextlib.suppress(ModerationError):  # no address known ("unknown"): nothing to look up
        keys.append(and_(bans.c.kind == "address", bans.c.key == _address(address)))
    if not keys:
        return
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(bans.c.kind, bans.c.until, actions.c.reason)
                                         .join(actions, actions.c.id == bans.c.action_id)
                                         .where(or_(*keys)))).all()
    now = time.time()
    for kind, until, reason in sorted(rows):
        if until is None or until > now:
            who = "this address is banned" if kind == "address" else "you are banned"
            raise ModerationError("banned", f"{who}{_until(until)}: {reason}")


async def ban(store: db.Store, kind: str, key: str, reason: str, by: str | None = None,
              until: float | None = None, details: dict[str, Any] | None = None) -> str:
    """Ban a guest (``key``: its identity) or an address until ``until`` (``None``: until lifted);
    logged as ``ban-guest`` or ``ban-address``, the reason shown to whoever is refused. Returns
    the key banned (an address in its compressed form)."""
    if kind not in BAN_KINDS:
        raise ModerationError("bad-sanction", f"a ban names one of {', '.join(BAN_KINDS)}, not {kind!r}")
    why = _reason(reason)
    banned = _address(key) if kind == "address" else key
    async with store.engine.begin() as connection:
        action = await log_action(connection, by, None, f"ban-{kind}", why,
                                  {kind: banned, "until": until, **(details or {})})
        await connection.execute(delete(bans).where(bans.c.kind == kind, bans.c.key == banned))
        await connection.execute(insert(bans).values(kind=kind, key=banned, since=time.time(), until=until,
                                                     action_id=action))
    return banned


async def seat_guest(store: db.Store, table_id: str, seat: int) -> tuple[str, str]:
    """The identity and name of the guest who held ``seat`` at ``table_id`` (a moderator bans
    a guest by the seat it held)."""
    async with store.engine.connect() as connection:
        row = (await connection.execute(
            select(db.seats.c.guest_id, db.seats.c.name, db.seats.c.user_id)
            .where(db.seats.c.table_id == table_id, db.seats.c.seat == seat))).first()
    if row is None:
        raise ModerationError("unknown-seat", f"there is no seat {seat} at table {table_id!r}")
    if row.guest_id is None or row.user_id is not None:
        raise ModerationError("no-player", f"no guest held seat {seat} at table {table_id!r}")
    return row.guest_id, row.name or "Guest"


async def ban_guest(store: db.Store, table_id: str, seat: int, reason: str, by: str | None = None,
                    until: float | None = None) -> tuple[str, str]:
    """Ban the guest who held ``seat`` at ``table_id`` (:func:`ban`): its identity and name."""
    guest, name = await seat_guest(store, table_id, seat)
    await ban(store, "guest", guest, reason, by, until, {"name": name, "table": table_id, "seat": seat})
    return guest, name


async def unban(store: db.Store, kind: str, key: str, reason: str, by: str | None = None) -> str:
    """Lift a ban of a guest or an address (logged as ``unban-guest``, ``unban-address``)."""
    why = _reason(reason)
    banned = _address(key) if kind == "address" else key
    async with store.engine.begin() as connection:
        removed = await connection.execute(delete(bans).where(bans.c.kind == kind, bans.c.key == banned))
        if removed.rowcount == 0:
            raise ModerationError("not-sanctioned", f"no ban of the {kind} {banned}")
        await log_action(connection, by, None, f"unban-{kind}", why, {kind: banned})
    return banned


async def bans_in_force(store: db.Store) -> list[dict[str, Any]]:
    """The bans of guests and addresses in force, newest first: kind, key, since, until, reason
    and, for a guest, its name and the seat it was banned by."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(bans, actions.c.reason, actions.c.data)
                                         .join(actions, actions.c.id == bans.c.action_id)
                                         .order_by(bans.c.since.desc()))).mappings().all()
    now = time.time()
    found = []
    for r in rows:
        if r["until"] is not None and r["until"] <= now:
            continue
        data = json.loads(r["data"] or "{}")
        found.append({"kind": r["kind"], "key": r["key"], "since": r["since"], "until": r["until"],
                      "reason": r["reason"], "name": data.get("name"), "table": data.get("table"),
                      "seat": data.get("seat")})
    return found


# -- the seek log --------------------------------------------------------------------------------

async def log_seeks(store: db.Store, ended: list[tuple[str, float, SeekOutcome]]) -> None:
    """Keep accounts' ended seeks ``(account, made at, outcome)`` for the seek-spam signal, and
    forget those accounts' seeks older than :data:`SEEKS_KEPT` seconds."""
    if not ended:
        return
    async with store.engine.begin() as connection:
        await connection.execute(insert(seek_log), [{"user_id": user, "at": at, "outcome": outcome}
                                                    for user, at, outcome in ended])
        await connection.execute(delete(seek_log).where(
            seek_log.c.user_id.in_(sorted({user for user, _, _ in ended})),
            seek_log.c.at < time.time() - SEEKS_KEPT))


async def seeks_of(store: db.Store, user_id: str) -> list[Seek]:
    """An account's seeks of the last :data:`SEEKS_KEPT` seconds, oldest first."""
    async with store.engine.connect() as connection:
        rows = (await connection.execute(select(seek_log.c.at, seek_log.c.outcome).where(
            seek_log.c.user_id == user_id, seek_log.c.at >= time.time() - SEEKS_KEPT)
            .order_by(seek_log.c.at))).all()
    return [Seek(user_id, at, outcome) for at, outcome in rows]


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

"""Moderation's HTTP routes (``docs/players.md``, ``docs/fairplay.md``): a player's blocks
(of accounts, and of guests met at a table) and reports and what moderation says about them
(``/api/blocks``, ``/api/reports``, ``/api/moderation/standing``), and the moderators' own
(``/api/moderation/...``: the reports queue, a player's history page by page, actions with a
stated reason, bans of guests and addresses, the log), over ``server/moderation.py`` and
``server/refunds.py``. Every moderator route checks the role."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import and_, func, or_, select

from kseri.rules import Rules
from kseri.server import db, moderation
from kseri.server.accounts import CheckedUser, SignedIn, User, users
from kseri.server.errors import ApiError, errors
from kseri.server.fairplay import (
    AccuracyModel,
    Signal,
    accuracy_model_of,
    assisted,
    boosting,
    sandbagging,
    seek_spam,
)
from kseri.server.moderation import NOTE_LENGTH, BanKind, ModerationError, ReportReason
from kseri.server.players import Players, analyses
from kseri.server.ratings import family_of, rating_history
from kseri.server.refunds import rated_games_at, refund, refunds_of
from kseri.server.registry import TableRegistry
from kseri.server.resign import ResignRefused, close
from kseri.server.room import run_to_end

router = APIRouter(tags=["moderation"])

Reason = Annotated[str, Field(min_length=1, max_length=500)]
Username = Annotated[str, Field(min_length=1, max_length=40)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BlockBody(_Body):
    """The player to block."""

    username: Username


class ReportBody(_Body):
    """A report: the player, a reason from the fixed list, an optional short note, and the
    game it came from (a table where the player sat), if any."""

    username: Username
    reason: ReportReason
    note: Annotated[str | None, Field(max_length=NOTE_LENGTH)] = None
    table: Annotated[str | None, Field(max_length=40)] = None


class ActionBody(_Body):
    """A moderator's action on a player, with its reason (shown to the player for a warning
    or a sanction); ``days`` bounds a sanction (none: until lifted); ``refund`` annuls a banned
    player's latest rated games and gives their opponents' rating changes back."""

    action: Literal["warn", "mute", "rated-ban", "ban", "unmute", "unrated-ban", "unban"]
    reason: Reason
    days: Annotated[float | None, Field(gt=0, le=3650)] = None
    refund: bool = False


class RenameBody(_Body):
    """An offensive username replaced."""

    username: Username
    reason: Reason


class ReasonBody(_Body):
    """Why (logged)."""

    reason: Reason


class SeatBlockBody(_Body):
    """The player to block by the seat they held at a table where one met them: the blocker's
    account held a seat there, or ``token`` is one of its seats' tokens."""

    table: Annotated[str, Field(min_length=1, max_length=40)]
    seat: Annotated[int, Field(ge=0, le=5)]
    token: Annotated[str | None, Field(max_length=100)] = None


class BanBody(_Body):
    """A ban of a guest (by the seat it held: ``table`` and ``seat``) or of an ``address``, with
    its reason (shown to whoever is refused) and, optionally, its length in ``days``."""

    kind: BanKind
    address: Annotated[str | None, Field(max_length=64)] = None
    table: Annotated[str | None, Field(max_length=40)] = None
    seat: Annotated[int | None, Field(ge=0, le=5)] = None
    reason: Reason
    days: Annotated[float | None, Field(gt=0, le=3650)] = None


class LiftBody(_Body):
    """A ban of a guest or an address lifted: its ``key`` as the bans list shows it."""

    kind: BanKind
    key: Annotated[str, Field(min_length=1, max_length=64)]
    reason: Reason


def _players(request: Request) -> Players:
    players: Players = request.app.state.players
    return players


async def _moderator(request: Request, user: User) -> Players:
    """The players' layer, once ``user`` is known to hold the moderator role (403 otherwise)."""
    players = _players(request)
    if not await moderation.is_moderator(players.store, user.id):
        raise ModerationError("not-moderator", "only moderators may do this")
    return players


# -- players protect themselves ------------------------------------------------------------------

@router.get("/api/blocks", responses=errors(401))
async def list_blocks(user: SignedIn, request: Request) -> dict[str, Any]:
    """The players the signed-in account blocks."""
    found = await moderation.blocked_by(_players(request).store, user.id)
    return {"blocks": [entry.username for entry in found]}


@router.post("/api/blocks", status_code=201, responses=errors(401, 403, 404, 409, 422))
async def add_block(body: BlockBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Block a player: no quick game, challenge, joining one's tables or watching one's games."""
    store = _players(request).store
    target = await moderation.account(store, body.username)
    await moderation.block(store, user.id, target.id)
    return {"blocks": [entry.username for entry in await moderation.blocked_by(store, user.id)]}


@router.delete("/api/blocks/{username}", responses=errors(401, 403, 404))
async def remove_block(username: str, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Undo a block."""
    store = _players(request).store
    target = await moderation.account(store, username[:40])
    await moderation.unblock(store, user.id, target.id)
    return {"blocks": [entry.username for entry in await moderation.blocked_by(store, user.id)]}


@router.post("/api/blocks/seats", status_code=201, responses=errors(401, 403, 404, 409, 422))
async def block_seat(body: SeatBlockBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Block whoever held a seat at a table where one met them (the table's page): its account,
    or its guest (no quick game, joining or watching each other's tables)."""
    held = await moderation.block_seat(_players(request).store, user.id, body.table, body.seat, body.token)
    return {"blocked": {"kind": held.kind, "name": held.name}}


@router.get("/api/blocks/guests", responses=errors(401))
async def list_guest_blocks(user: SignedIn, request: Request) -> dict[str, Any]:
    """The guests the signed-in account blocks: each block's ``id``, the guest's name and the
    table where they met."""
    return {"guests": await moderation.guest_blocks_of(_players(request).store, user.id)}


@router.delete("/api/blocks/guests/{block_id}", responses=errors(401, 403, 404))
async def remove_guest_block(block_id: int, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Undo a block of a guest."""
    store = _players(request).store
    await moderation.unblock_guest(store, user.id, block_id)
    return {"guests": await moderation.guest_blocks_of(store, user.id)}


@router.post("/api/reports", status_code=201, responses=errors(401, 403, 404, 409, 422, 429))
async def file_report(body: ReportBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Report a player (at most ``REPORTS_PER_DAY`` reports a day from one account)."""
    store = _players(request).store
    target = await moderation.account(store, body.username)
    note = (body.note or "").strip() or None
    report_id = await moderation.report(store, user.id, target.id, body.reason, note, body.table)
    return {"id": report_id}


@router.get("/api/moderation/standing", responses=errors(401))
async def standing(user: SignedIn, request: Request) -> dict[str, Any]:
    """What moderation says about the signed-in account: sanctions in force with their
    reasons, recent warnings, and whether it moderates."""
    return await moderation.standing(_players(request).store, user.id)


# -- moderators act ------------------------------------------------------------------------------

@router.get("/api/moderation/reports", responses=errors(401, 403))
async def reports_queue(user: SignedIn, request: Request) -> dict[str, Any]:
    """The open reports, oldest first, each with the game behind it (if any)."""
    players = await _moderator(request, user)
    return {"reports": await moderation.open_reports(players.store)}


HISTORY_PAGE = 50
"""Games a page of a player's history holds unless asked for fewer (the most: :data:`HISTORY_MOST`)."""
HISTORY_MOST = 100
MODEL_GAMES = 1000
"""The latest analysed rated player-games the assisted-play reference is fitted on..."""
MODEL_KEPT = 600.0
"""... fitted again at most this often (seconds)."""
_model: tuple[float, AccuracyModel | None] | None = None
"""The assisted-play reference (``fairplay.accuracy_model_of``) and when it was fitted."""

Page = Annotated[int, Query(ge=1, le=HISTORY_MOST)]
Cursor = Annotated[str | None, Query(max_length=80)]


def _cursor(before: str) -> tuple[float, str]:
    """A page's cursor (``created:table``, the last game of the page before) read back."""
    created, _, table_id = before.partition(":")
    try:
        return float(created), table_id
    except ValueError:
        raise ApiError(422, "bad-cursor", f"{before!r} is not a cursor this history gave") from None


async def _reference(store: db.Store) -> AccuracyModel | None:
    """What accuracy players of each rating reach here, from the latest :data:`MODEL_GAMES`
    analysed rated player-games (``None``: too few to tell); fitted at most every
    :data:`MODEL_KEPT` seconds."""
    global _model
    if _model is not None and time.monotonic() - _model[0] < MODEL_KEPT:
        return _model[1]
    history = rating_history.c
    lagged = select(history.id, history.table_id, history.user_id, func.lag(history.mu).over(
        partition_by=(history.user_id, history.family), order_by=history.id).label("before")).subquery()
    query = (select(lagged.c.table_id, lagged.c.before, db.seats.c.seat, analyses.c.data)
             .join(analyses, analyses.c.table_id == lagged.c.table_id)
             .join(db.seats, and_(db.seats.c.table_id == lagged.c.table_id,
                                  db.seats.c.user_id == lagged.c.user_id))
             .order_by(lagged.c.id.desc()).limit(MODEL_GAMES))
    async with store.engine.connect() as connection:
        rows = (await connection.execute(query)).all()
    read: dict[str, Any] = {}
    points = []
    for table_id, before, seat, data in rows:
        review = read.setdefault(table_id, json.loads(data))
        accuracy = review["players"][seat]["accuracy"] if seat < len(review["players"]) else None
        if accuracy is not None:
            points.append((1500.0 if before is None else before, accuracy))
    try:
        model: AccuracyModel | None = accuracy_model_of(points)
    except ValueError:
        model = None
    _model = (time.monotonic(), model)
    return model


async def history_page(store: db.Store, user_id: str, before: str | None,
                       limit: int) -> dict[str, Any]:
    """One page of a player's finished games, newest first, from ``before`` (a cursor, ``None``:
    the newest), with the fair-play signals seen in the page's rated games (boosting,
    sandbagging, assisted play; ``docs/fairplay.md``); ``next``: the cursor of the page after
    (``None``: the last). At most ``limit`` tables are replayed."""
    tables, seats = db.tables.c, db.seats.c
    query = (select(tables.id, tables.rules, tables.created, tables.rated, seats.seat)
             .join(db.seats, seats.table_id == tables.id)
             .where(seats.user_id == user_id, tables.finished.is_(True))
             .order_by(tables.created.desc(), tables.id.desc()).limit(limit + 1))
    if before is not None:
        created, table_id = _cursor(before)
        query = query.where(or_(tables.created < created,
                                and_(tables.created == created, tables.id < table_id)))
    async with store.engine.connect() as connection:
        rows = (await connection.execute(query)).all()
        page = rows[:limit]
        reviews = dict((await connection.execute(select(analyses.c.table_id, analyses.c.data).where(
            analyses.c.table_id.in_([row.id for row in page if row.rated])))).tuples().all())
    read = {table_id: [player["accuracy"] for player in json.loads(data)["players"]]
            for table_id, data in reviews.items()}
    accuracy = {row.id: read[row.id][row.seat] for row in page if row.id in read}
    rated = [dataclasses.replace(game, accuracy=(read[game.table][0], read[game.table][1]))
             if game.table in read else game
             for game in await rated_games_at(store, [row.id for row in reversed(page) if row.rated])]
    found = boosting(rated) + sandbagging(rated)
    if any(a is not None for game in rated for a in game.accuracy):
        model = await _reference(store)
        found += assisted(rated, model=model) if model is not None else []
    by_table = {game.table: game for game in rated}
    games = []
    for row in page:
        rules = Rules.from_options(json.loads(row.rules))
        game = by_table.get(row.id)
        entry: dict[str, Any] = {"table": row.id, "family": family_of(rules), "rated": bool(row.rated),
                                 "created": row.created, "seat": row.seat, "accuracy": accuracy.get(row.id)}
        if game is not None:
            mine = game.seat_of(user_id)
            entry |= {"result": "draw" if game.winner is None else "win" if game.winner == mine else "loss",
                      "ending": game.ending, "plays": game.plays,
                      "rating": [round(game.ratings_before[mine]), round(game.ratings_after[mine])]}
        games.append(entry)
    more = len(rows) > limit
    return {"games": games, "signals": await _signals(store, found, user_id),
            "next": f"{page[-1].created!r}:{page[-1].id}" if more else None}


async def _signals(store: db.Store, found: list[Signal], user_id: str) -> list[dict[str, Any]]:
    """The signals about ``user_id`` as the page shows them, the accounts named by username."""
    mine = [signal for signal in found if user_id in signal.subjects]
    subjects = sorted({subject for signal in mine for subject in signal.subjects})
    async with store.engine.connect() as connection:
        names = dict((await connection.execute(select(users.c.id, users.c.username)
                                               .where(users.c.id.in_(subjects)))).tuples().all())
    shown = []
    for signal in mine:
        evidence = signal.evidence
        for subject in signal.subjects:
            evidence = evidence.replace(subject, names.get(subject, subject))
        shown.append({"kind": signal.kind, "evidence": evidence, "tables": list(signal.tables)})
    return shown


@router.get("/api/moderation/players/{username}", responses=errors(401, 403, 404))
async def player_history(username: str, user: SignedIn, request: Request,
                         limit: Page = HISTORY_PAGE) -> dict[str, Any]:
    """A player's history for moderators: the first page of their games (``next``: the cursor
    of the page after, ``/api/moderation/players/{username}/games``), reports about them,
    fair-play signals (``docs/fairplay.md``: those of the page's games, and seek spam over their
    seeks of the last 30 days), sanctions in force, refunds and the log of actions about them."""
    players = await _moderator(request, user)
    store = players.store
    target = await moderation.account(store, username[:40])
    page = await history_page(store, target.id, None, limit)
    spam = await _signals(store, seek_spam(await moderation.seeks_of(store, target.id)), target.id)
    return {
        "username": target.username,
        "games": page["games"],
        "next": page["next"],
        "reports": await moderation.reports_about(store, target.id),
        "signals": page["signals"] + spam,
        "sanctions": await moderation.sanctions_of(store, target.id),
        "refunds": await refunds_of(store, target.id),
        "log": await moderation.log_of(store, target.id),
    }


@router.get("/api/moderation/players/{username}/games", responses=errors(401, 403, 404, 422))
async def player_games(username: str, user: SignedIn, request: Request, before: Cursor = None,
                       limit: Page = HISTORY_PAGE) -> dict[str, Any]:
    """A page of a player's history: their games from ``before`` (the ``next`` the page before
    gave), with the signals seen in them, and the ``next`` cursor (``null``: none left)."""
    players = await _moderator(request, user)
    target = await moderation.account(players.store, username[:40])
    return await history_page(players.store, target.id, before, limit)


@router.post("/api/moderation/players/{username}/actions", responses=errors(401, 403, 404, 409, 422))
async def act(username: str, body: ActionBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Warn, mute table talk, ban from rated play or ban (``un``…: lift it), saying why; a ban
    with ``refund`` also annuls the player's latest rated games (``server/refunds.py``)."""
    players = await _moderator(request, user)
    store = players.store
    name = username[:40]
    if body.refund and body.action != "ban":
        raise ModerationError("bad-action", "only a ban may refund the player's opponents")
    refunded = None
    if body.action == "warn":
        target = await moderation.warn(store, name, body.reason, user.id)
    elif body.action.startswith("un"):
        target = await moderation.lift(store, name, body.action[2:], body.reason, user.id)
    else:
        until = None if body.days is None else time.time() + body.days * 86400
        target = await moderation.sanction(store, name, body.action, body.reason, user.id, until)
        if body.action == "ban":
            for seek in [s for s in players.pairing.seeks.values() if s.user == target.id and s.seat is None]:
                players.pairing.cancel(seek)
        if body.refund:
            refunded = await refund(store, target.username, body.reason, user.id)
    return {"username": target.username, "action": body.action, "refund": refunded}


@router.post("/api/moderation/players/{username}/rename", responses=errors(401, 403, 404, 409, 422))
async def rename(username: str, body: RenameBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Give a player another username (an offensive one replaced), saying why."""
    players = await _moderator(request, user)
    renamed = await moderation.rename(players.store, username[:40], body.username, body.reason, user.id)
    for table in players.live.values():  # the live seats show the new name too
        for seat in table.seats:
            if seat.user == renamed.id:
                seat.name = renamed.username
    return {"username": renamed.username}


@router.post("/api/moderation/reports/{report_id}/close", responses=errors(401, 403, 404, 409, 422))
async def close_report(report_id: str, body: ReasonBody, user: CheckedUser,
                       request: Request) -> dict[str, Any]:
    """Close a report, saying why."""
    players = await _moderator(request, user)
    await moderation.close_report(players.store, report_id[:40], user.id, body.reason)
    return {"closed": report_id}


@router.post("/api/moderation/tables/{table_id}/close", responses=errors(401, 403, 404, 409, 422))
async def close_table(table_id: str, body: ReasonBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Close a table, saying why. One not yet begun (an offensive name at its seat, a lobby
    flooded) is removed and its connections dropped; a match under way ends at once, won by
    nobody and rated for nobody, its players told why (``match-end`` with ``closed``); a
    finished one cannot be closed (409)."""
    players = await _moderator(request, user)
    tables: TableRegistry = request.app.state.tables
    table = await tables.get(table_id[:40])  # in a cluster, its holder answers (server/relay.py)
    if table is None:
        raise ApiError(404, "no-such-table", f"there is no table {table_id[:40]!r}")
    if table.state.status == "finished":
        raise ApiError(409, "finished", "the match is over: there is nothing to close")
    await moderation.close_table(players.store, table.id, body.reason, user.id)
    reason = body.reason.strip()
    if table.state.status == "waiting":
        await tables.remove(table, f"a moderator closed this table: {reason}")
        return {"closed": table.id}
    try:
        await run_to_end(close(table, reason))
    except ResignRefused as error:  # it ended meanwhile
        raise ApiError(409, "finished", str(error.args[0])) from None
    return {"closed": table.id}


@router.get("/api/moderation/bans", responses=errors(401, 403))
async def list_bans(user: SignedIn, request: Request) -> dict[str, Any]:
    """The bans of guests and addresses in force, newest first."""
    players = await _moderator(request, user)
    return {"bans": await moderation.bans_in_force(players.store)}


@router.post("/api/moderation/bans", status_code=201, responses=errors(401, 403, 404, 409, 422))
async def add_ban(body: BanBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Ban a guest (by the seat it held: ``table``, ``seat``) or an ``address``, saying why, for
    ``days`` or until lifted: it may not start a guest session, sign up, sit or seek, and is
    told why and until when. A banned guest's waiting seeks are withdrawn."""
    players = await _moderator(request, user)
    until = None if body.days is None else time.time() + body.days * 86400
    name = None
    if body.kind == "guest":
        if body.table is None or body.seat is None:
            raise ModerationError("unknown-seat", "a guest is banned by the seat it held: give table and "
                                                  "seat")
        key, name = await moderation.ban_guest(players.store, body.table, body.seat, body.reason, user.id,
                                               until)
        for seek in [s for s in players.pairing.seeks.values() if s.guest == key and s.seat is None]:
            players.pairing.cancel(seek)
    else:
        if body.address is None:
            raise ModerationError("bad-address", "an address ban needs the address")
        key = await moderation.ban(players.store, "address", body.address, body.reason, user.id, until)
    return {"kind": body.kind, "key": key, "name": name, "until": until}


@router.post("/api/moderation/bans/lift", responses=errors(401, 403, 409, 422))
async def lift_ban(body: LiftBody, user: CheckedUser, request: Request) -> dict[str, Any]:
    """Lift a ban of a guest or an address, saying why."""
    players = await _moderator(request, user)
    key = await moderation.unban(players.store, body.kind, body.key, body.reason, user.id)
    return {"kind": body.kind, "key": key}


@router.get("/api/moderation/log", responses=errors(401, 403))
async def action_log(user: SignedIn, request: Request) -> dict[str, Any]:
    """Every moderation action, newest first: who, when, what and why."""
    players = await _moderator(request, user)
    return {"log": (await moderation.log_of(players.store))[:500]}

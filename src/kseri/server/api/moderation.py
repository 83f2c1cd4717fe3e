"""Moderation's HTTP routes (``docs/players.md``, ``docs/fairplay.md``): a player's blocks and
reports and what moderation says about them (``/api/blocks``, ``/api/reports``,
``/api/moderation/standing``), and the moderators' own (``/api/moderation/...``: the reports
queue, a player's history, actions with a stated reason, the log), over
``server/moderation.py`` and ``server/refunds.py``. Every moderator route checks the role."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from kseri.server import moderation
from kseri.server.accounts import CheckedUser, SignedIn, User
from kseri.server.errors import ApiError, errors
from kseri.server.fairplay import boosting, sandbagging
from kseri.server.moderation import NOTE_LENGTH, ModerationError, ReportReason
from kseri.server.players import Players
from kseri.server.refunds import rated_games, refund, refunds_of
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


@router.get("/api/moderation/players/{username}", responses=errors(401, 403, 404))
async def player_history(username: str, user: SignedIn, request: Request) -> dict[str, Any]:
    """A player's history for moderators: games, reports about them, fair-play signals
    (``docs/fairplay.md``), sanctions in force, refunds and the log of actions about them."""
    players = await _moderator(request, user)
    store = players.store
    target = await moderation.account(store, username[:40])
    rated = await rated_games(store, target.id)
    found = [signal for signal in boosting(rated) + sandbagging(rated) if target.id in signal.subjects]
    return {
        "username": target.username,
        "games": (await players.games_of(target.id))[:100],
        "reports": await moderation.reports_about(store, target.id),
        "signals": [{"kind": signal.kind, "evidence": signal.evidence, "tables": list(signal.tables)}
                    for signal in found],
        "sanctions": await moderation.sanctions_of(store, target.id),
        "refunds": await refunds_of(store, target.id),
        "log": await moderation.log_of(store, target.id),
    }


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


@router.get("/api/moderation/log", responses=errors(401, 403))
async def action_log(user: SignedIn, request: Request) -> dict[str, Any]:
    """Every moderation action, newest first: who, when, what and why."""
    players = await _moderator(request, user)
    return {"log": (await moderation.log_of(players.store))[:500]}

"""The memory trainer (``analysis/memory.py``, ``docs/analysis.md``): the drill's positions from
seeded bot games, its answers marked (a signed-in player's standing kept in ``trainer_scores``),
and, at a live casual table, the quiz about the seat's own view and the counting aid. A rated
table is always refused (403 ``rated``), a table without hints too (403 ``not-casual``)."""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Column, Float, Integer, String, Table, select
from sqlalchemy.exc import IntegrityError

from kseri.analysis.memory import (
    AnswerError,
    Mark,
    Moment,
    batch_of,
    counting_grid,
    drill_view,
    questions,
    score,
)
from kseri.engine import View
from kseri.rules import PRESETS
from kseri.server import db
from kseri.server.accounts import User, checked_user, optional_user
from kseri.server.errors import ApiError, errors
from kseri.server.registry import TableRegistry
from kseri.server.room import GameTable
from kseri.views import view_to_json

router = APIRouter(tags=["trainer"])

MAX_SEED = 10**9
"""Drill seeds are drawn below this."""

trainer_scores = Table(
    "trainer_scores", db.metadata,
    Column("user_id", String(24), primary_key=True),
    Column("moment", String(8), primary_key=True),
    Column("positions", Integer, nullable=False),
    Column("credit", Float, nullable=False),
    Column("questions", Integer, nullable=False),
    Column("streak", Integer, nullable=False),
    Column("best_streak", Integer, nullable=False),
    Column("best_position", Float, nullable=False),
)
"""An account's drill standing per moment (migration ``0014_trainer``): positions answered, the
credit earned over the questions asked, the run of positions answered without a fault (now and
at best) and the best position's credit."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


Answers = Annotated[dict[Annotated[str, Field(max_length=40)], Any], Field(max_length=8)]


class DrillAnswers(_Body):
    """The answers to one drill position's questions."""

    id: Annotated[str, Field(max_length=60)]
    answers: Answers


class QuizAnswers(_Body):
    """The answers to a table's quiz, asked at event ``seq``."""

    seq: Annotated[int, Field(ge=0)]
    answers: Answers


def _marked(asked: tuple[Any, ...], answers: dict[str, Any]) -> tuple[Mark, ...]:
    try:
        return score(asked, answers)
    except AnswerError as error:
        status = 404 if error.code == "no-such-question" else 422
        raise ApiError(status, error.code, str(error), field=error.question) from None


def _marks_json(marks: tuple[Mark, ...]) -> dict[str, Any]:
    return {"marks": [mark.to_json() for mark in marks], "credit": round(sum(m.credit for m in marks), 3),
            "questions": len(marks)}


# -- the drill --------------------------------------------------------------------------------------

def _position(position_id: str) -> tuple[str, Moment, int, View]:
    """The drill position named ``preset:moment:seed``."""
    preset, _, rest = position_id.partition(":")
    moment, _, seed = rest.partition(":")
    if preset not in PRESETS or moment not in Moment.__members__.values() or not seed.isdigit() \
            or int(seed) >= MAX_SEED:
        raise ApiError(404, "no-such-position", f"there is no drill position {position_id!r}")
    return preset, Moment(moment), int(seed), drill_view(PRESETS[preset], int(seed), Moment(moment))


@router.get("/api/trainer/position", responses=errors(404, 422))
async def position(moment: Moment = Moment.MIDDLE, preset: Annotated[str, Query(max_length=40)] = "greek",
                   seed: Annotated[int, Query(ge=0, lt=MAX_SEED)] | None = None) -> dict[str, Any]:
    """A drill position: seat 0's view at a turn of the ``moment``'s batch of a bot game of
    ``preset`` (``seed``: drawn when not given), and its questions (never their answers)."""
    if preset not in PRESETS:
        raise ApiError(422, "no-such-preset", f"there is no preset {preset[:40]!r}; the presets are: "
                       f"{', '.join(PRESETS)}", field="preset")
    seed = secrets.randbelow(MAX_SEED) if seed is None else seed
    _, _, _, view = _position(f"{preset}:{moment.value}:{seed}")
    return {"id": f"{preset}:{moment.value}:{seed}", "preset": preset, "moment": moment.value, "seed": seed,
            "batch": batch_of(view), "view": view_to_json(view),
            "questions": [question.to_json() for question in questions(view)]}


@router.post("/api/trainer/answer", responses=errors(403, 404, 422))
async def drill_answer(body: DrillAnswers, request: Request) -> dict[str, Any]:
    """Mark a drill position's answers; a signed-in player's (CSRF token checked) standing for
    the moment is updated and returned (``standing``: ``null`` for a guest)."""
    user = None if await optional_user(request) is None else await checked_user(request)
    _, moment, _, view = _position(body.id)
    marks = _marked(questions(view), body.answers)
    answer = _marks_json(marks)
    answer["standing"] = None if user is None else await _record(request, user, moment, marks)
    return answer


@router.get("/api/trainer/standing", responses=errors(401))
async def standing(request: Request) -> dict[str, Any]:
    """The signed-in player's drill standing per moment."""
    user = await optional_user(request)
    if user is None:
        raise ApiError(401, "guest", "a guest keeps no trainer scores: sign in to keep them")
    async with request.app.state.players.store.engine.connect() as connection:
        rows = (await connection.execute(select(trainer_scores).where(
            trainer_scores.c.user_id == user.id))).mappings().all()
    return {"moments": {row["moment"]: _standing_json(dict(row)) for row in rows}}


def _standing_json(row: dict[str, Any]) -> dict[str, Any]:
    return {"positions": row["positions"], "credit": round(row["credit"], 3), "questions": row["questions"],
            "streak": row["streak"], "best_streak": row["best_streak"], "best_position": row["best_position"]}


async def _record(request: Request, user: User, moment: Moment, marks: tuple[Mark, ...]) -> dict[str, Any]:
    """Add one marked position to the account's standing for ``moment``, read and written whole
    in one transaction (once more when a concurrent first answer inserted the row meanwhile)."""
    try:
        return await _add_position(request, user, moment, marks)
    except IntegrityError:
        return await _add_position(request, user, moment, marks)


async def _add_position(request: Request, user: User, moment: Moment,
                        marks: tuple[Mark, ...]) -> dict[str, Any]:
    earned = round(sum(mark.credit for mark in marks), 3)
    perfect = all(mark.exact for mark in marks)
    key = (trainer_scores.c.user_id == user.id) & (trainer_scores.c.moment == moment.value)
    async with request.app.state.players.store.engine.begin() as connection:
        found = (await connection.execute(select(trainer_scores).where(key))).mappings().first()
        row: dict[str, Any] = dict(found) if found else {
            "user_id": user.id, "moment": moment.value, "positions": 0, "credit": 0.0, "questions": 0,
            "streak": 0, "best_streak": 0, "best_position": 0.0}
        streak = int(row["streak"]) + 1 if perfect else 0
        row.update(positions=int(row["positions"]) + 1, credit=float(row["credit"]) + earned,
                   questions=int(row["questions"]) + len(marks), streak=streak,
                   best_streak=max(int(row["best_streak"]), streak),
                   best_position=max(float(row["best_position"]), earned))
        if found:
            await connection.execute(trainer_scores.update().where(key).values(**row))
        else:
            await connection.execute(trainer_scores.insert().values(**row))
    return _standing_json(row)


# -- at a casual table ------------------------------------------------------------------------------

async def _seat_view(request: Request, table_id: str, authorization: str | None) -> tuple[GameTable, View]:
    """The caller's seat's view at a live casual table: refused for a rated table (403 ``rated``),
    one without hints (403 ``not-casual``), a caller without a seat there (401), a match not in
    play (409)."""
    tables: TableRegistry = request.app.state.tables
    table = await tables.get(table_id[:40])
    if table is None:
        raise ApiError(404, "no-such-table", f"there is no table {table_id[:40]!r}")
    if table.rated:
        raise ApiError(403, "rated", "the memory trainer and the counting aid are never offered in "
                       "a rated game")
    if not table.casual:
        raise ApiError(403, "not-casual", "the memory trainer and the counting aid are for casual tables")
    scheme, _, token = (authorization or "").partition(" ")
    seat = table.seat_of(token) if scheme.lower() == "bearer" and token else None
    if seat is None:
        user = await optional_user(request)
        seat = None if user is None else table.seat_of_user(user.id)
    if seat is None:
        raise ApiError(401, "bad-token", "send your seat's token as 'Authorization: Bearer TOKEN'")
    match = table.state.match
    if match is None or table.state.status == "finished" or match.is_round_over():
        raise ApiError(409, "not-playing", "no round is being played")
    return table, match.view(seat)


@router.get("/api/tables/{table_id}/quiz", responses=errors(401, 403, 404, 409))
async def quiz(table_id: str, request: Request,
               authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """The memory questions about the caller's view now (``seq``: the event they are asked at)."""
    table, view = await _seat_view(request, table_id, authorization)
    return {"seq": table.state.seq, "batch": batch_of(view),
            "questions": [question.to_json() for question in questions(view)]}


@router.post("/api/tables/{table_id}/quiz", responses=errors(401, 403, 404, 409, 422))
async def quiz_answer(table_id: str, body: QuizAnswers, request: Request,
                      authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """Mark the answers to the quiz asked at ``seq`` (409 ``moved-on`` once a card has been
    played since). Nothing is stored."""
    table, view = await _seat_view(request, table_id, authorization)
    if body.seq != table.state.seq:
        raise ApiError(409, "moved-on", "the game has moved on since the quiz was asked: ask again")
    return _marks_json(_marked(questions(view), body.answers))


@router.get("/api/tables/{table_id}/counting", responses=errors(401, 403, 404, 409))
async def counting(table_id: str, request: Request,
                   authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """The counting aid: each card's copies gone this round, in the caller's hand, still out."""
    table, view = await _seat_view(request, table_id, authorization)
    return {"seq": table.state.seq, "batch": batch_of(view), "grid": counting_grid(view)}

"""How the HTTP API answers what went wrong: every refusal and failure as
``{"error": {"code", "message"}}`` with its status (``docs/server.md``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException

from kseri.server.accounts import AccountError
from kseri.server.cluster import Elsewhere
from kseri.server.errors import ApiError
from kseri.server.moderation import ModerationError
from kseri.server.protocol import ProtocolError
from kseri.server.relay import UNREACHABLE

log = logging.getLogger("kseri.server")


async def _api_error(_request: Request, error: ApiError) -> JSONResponse:
    detail: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.field is not None:
        detail["field"] = error.field
    headers = {} if error.retry_after is None else {"Retry-After": str(max(1, round(error.retry_after)))}
    return JSONResponse({"error": detail}, status_code=error.status, headers=headers)


async def _account_error(_request: Request, error: AccountError) -> JSONResponse:
    return error.response()


async def _moderation_error(_request: Request, error: ModerationError) -> JSONResponse:
    return JSONResponse({"error": {"code": error.code, "message": str(error)}}, status_code=error.status)


async def _moving(_request: Request, _error: Elsewhere) -> JSONResponse:
    return JSONResponse({"error": {"code": "table-moving", "message": "the table is moving to another "
                                   "server process; try again in a moment"}},
                        status_code=503, headers={"Retry-After": "1"})


async def _table_error(_request: Request, error: ProtocolError) -> JSONResponse:
    retry = error.code == "server-error"  # nothing was stored: the same request may be sent again
    return JSONResponse({"error": {"code": error.code, "message": error.message}},
                        status_code=503 if retry else 409, headers={"Retry-After": "1"} if retry else None)


async def _unreachable_database(_request: Request, error: DBAPIError) -> JSONResponse:
    log.warning("an HTTP request could not reach the database: %s", error.orig or error)
    return JSONResponse({"error": {"code": "storage-unavailable", "message": "the server cannot reach "
                                   "its database right now; nothing was changed, try again later"}},
                        status_code=503, headers={"Retry-After": "5"})


async def _unreachable_redis(_request: Request, error: RedisError) -> JSONResponse:
    log.warning("an HTTP request could not reach Redis: %s", error)
    return JSONResponse({"error": {"code": "cluster-unavailable", "message": UNREACHABLE}},
                        status_code=503, headers={"Retry-After": "5"})


async def _unexpected(_request: Request, _error: Exception) -> JSONResponse:
    log.exception("an HTTP request failed")
    return JSONResponse({"error": {"code": "server-error", "message": "the server failed to answer; "
                                   "nothing was changed"}}, status_code=500)


async def _bad_request(_request: Request, error: RequestValidationError) -> JSONResponse:
    first = error.errors()[0] if error.errors() else {"loc": (), "msg": "invalid request"}
    where = ".".join(str(part) for part in first["loc"][1:] or first["loc"])
    return JSONResponse({"error": {"code": "bad-request", "message": f"{where}: {first['msg']}",
                                   "field": where}}, status_code=422)


async def _http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
    code = {404: "not-found", 405: "method-not-allowed"}.get(error.status_code, "http-error")
    return JSONResponse({"error": {"code": code, "message": str(error.detail)}},
                        status_code=error.status_code)


Handler = Callable[[Request, Any], Coroutine[Any, Any, Response]]

HANDLERS: dict[int | type[Exception], Handler] = {
    ApiError: _api_error,
    AccountError: _account_error,
    ModerationError: _moderation_error,
    Elsewhere: _moving,
    ProtocolError: _table_error,
    DBAPIError: _unreachable_database,
    RedisError: _unreachable_redis,
    Exception: _unexpected,
    RequestValidationError: _bad_request,
    StarletteHTTPException: _http_error,
}
"""Each error's answer, for ``FastAPI(exception_handlers=...)``."""

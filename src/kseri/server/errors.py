"""The HTTP API's refusals: :class:`ApiError` and the shape of its answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class ApiError(Exception):
    """An HTTP request refused: ``{"error": {"code", "message"}}`` (and ``field``, the part of
    the request at fault, when there is one) with a 4xx or 5xx status."""

    def __init__(self, status: int, code: str, message: str, *, field: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.field, self.retry_after = field, retry_after


class ErrorDetail(BaseModel):
    """What went wrong."""

    code: str
    message: str
    field: str | None = None
    """The part of the request at fault (``rules.target``), when there is one."""


class ErrorOut(BaseModel):
    """An error answer."""

    error: ErrorDetail


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The documented error answers of a route."""
    return {status: {"model": ErrorOut} for status in statuses}

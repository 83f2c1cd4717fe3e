"""The operator's routes: ``/healthz``, ``/readyz`` and ``/metrics`` (``server/metrics.py``),
not in the API's schema: they are for machines watching the process, not for clients."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST

from kseri.server.metrics import Health, Metrics

router = APIRouter(include_in_schema=False)


@router.get("/healthz")
async def healthz() -> dict[str, Any]:
    """The process is alive."""
    return {"status": "alive"}


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """Whether the process should get traffic, and why not."""
    health: Health = request.app.state.health
    problems = await health.problems()
    status = "ready" if not problems else "not-ready"
    return JSONResponse({"status": status, "problems": problems}, status_code=503 if problems else 200)


@router.get("/metrics")
async def metrics_text(request: Request) -> Response:
    """Every metric in Prometheus' text format."""
    metrics: Metrics = request.app.state.metrics
    return Response(metrics.text(), media_type=CONTENT_TYPE_LATEST)

"""Probes for the platform: ``/healthz`` (alive) and ``/readyz`` (can serve)."""

from __future__ import annotations

from fastapi import APIRouter, Response, status
from starlette.concurrency import run_in_threadpool

from app.api.deps import ServicesDep
from app.api.schemas import Health, Readiness
from app.store.engine import ping

router = APIRouter(tags=["operations"])


@router.get("/healthz", response_model=Health)
async def healthz() -> Health:
    """Answers as long as the event loop runs; touches nothing else on purpose."""
    return Health()


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "Not ready: the database is down."}},
)
async def readyz(services: ServicesDep, response: Response) -> Readiness:
    """Ready when the database answers and a KB is loaded; reports the KB revision."""
    kb = services.kb.current.kb
    database_ok = await run_in_threadpool(ping, services.engine)
    ready = database_ok and len(kb) > 0
    if not ready:
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    return Readiness(
        status="ready" if ready else "not-ready",
        database="ok" if database_ok else "unreachable",
        kb_revision=kb.revision,
        articles=len(kb),
    )

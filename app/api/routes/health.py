"""Probes for the platform: ``/healthz`` (alive) and ``/readyz`` (can serve).

``/healthz`` touches nothing outside the event loop, so a slow database never
makes the platform restart a healthy process; ``/readyz`` checks what
serving needs: the database answers, its schema is at the migrations' head,
a KB is loaded (target H4). ``?verbose=true`` lists each check.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response, status
from starlette.concurrency import run_in_threadpool

from app.api.deps import ServicesDep
from app.api.schemas import Health, Readiness, ReadinessCheck
from app.store.migrate import cached_head, probe

router = APIRouter(tags=["operations"])


@router.get("/healthz", response_model=Health)
async def healthz() -> Health:
    """Answers as long as the event loop runs; touches nothing else on purpose."""
    return Health()


@router.get(
    "/readyz",
    response_model=Readiness,
    response_model_exclude_none=True,
    responses={
        503: {
            "model": Readiness,
            "description": "Not ready: the database is down or not migrated, or no KB is loaded.",
        }
    },
)
async def readyz(
    services: ServicesDep,
    response: Response,
    verbose: Annotated[bool, Query(description="List each check.")] = False,
) -> Readiness:
    """Ready when the database answers at the migrations' head and a KB is loaded."""
    kb = services.kb.current.kb
    database = await run_in_threadpool(probe, services.engine)
    head = cached_head()
    at_head = database.revision == head
    checks = [
        ReadinessCheck(
            name="database",
            ok=database.reachable,
            detail="answers" if database.reachable else "unreachable",
        ),
        ReadinessCheck(
            name="migrations",
            ok=at_head,
            detail=f"at {database.revision or 'nothing'}, head {head}",
        ),
        ReadinessCheck(
            name="kb", ok=len(kb) > 0, detail=f"{len(kb)} article(s), revision {kb.revision[:12]}"
        ),
    ]
    ready = all(check.ok for check in checks)
    if not ready:
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    migrations = ("at-head" if at_head else "behind") if database.reachable else "unknown"
    return Readiness(
        status="ready" if ready else "not-ready",
        database="ok" if database.reachable else "unreachable",
        migrations=migrations,
        kb_revision=kb.revision,
        articles=len(kb),
        checks=checks if verbose else None,
    )

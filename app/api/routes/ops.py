"""``/metrics`` (Prometheus text), and the hidden benchmark baseline ``/api/v1/_echo``.

``/metrics`` renders this app's own registry (see ``app.service.metrics``); it
carries counts and timings only, never request content (target A5).
``_echo`` exists only when ``ERRKB_ECHO_ENDPOINT`` is on: it reads the body
and answers its size, so ``benchmarks/http.py`` can put the framework's own
cost beside the match route's in the same run.
"""

from __future__ import annotations

from collections import Counter

from fastapi import APIRouter, Request
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response

from app.api.deps import ServicesDep
from app.articles.lifecycle import STALE_OUTCOMES, STATES
from app.service.article_states import article_lifecycles

router = APIRouter(tags=["operations"])


@router.get("/metrics", include_in_schema=False)
async def metrics(services: ServicesDep) -> Response:
    """Prometheus exposition format of this instance's registry."""
    live = services.kb.current
    services.metrics.show_kb(live.revision, len(live.kb))
    states = await run_in_threadpool(
        article_lifecycles, services.engine, live, stale_after_days=services.stale_after_days
    )
    counts = Counter(state.state for state in states.values())
    for state in STATES:
        services.metrics.article_states.labels(state).set(counts.get(state, 0))
    flags = Counter(state.flag for state in states.values() if state.flag)
    for reason in sorted(STALE_OUTCOMES):
        services.metrics.articles_flagged.labels(reason).set(flags.get(reason, 0))
    return Response(services.metrics.render(), media_type=CONTENT_TYPE_LATEST)


def echo_router(max_body_bytes: int) -> APIRouter:
    echo = APIRouter(max_body_size=max_body_bytes)

    @echo.post("/api/v1/_echo", include_in_schema=False)
    async def _echo(request: Request) -> Response:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
        return JSONResponse({"bytes": size})

    return echo

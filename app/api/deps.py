"""``Annotated`` dependency aliases for the JSON routes (FastAPI convention, STYLE.md rule 11).

Every dependency here is ``async def`` although none awaits anything: FastAPI
runs a plain ``def`` dependency in the thread pool, and four such hops per
match request cost more than the match of a 10 KB traceback (goal P8).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.http.errors import HttpError
from app.http.ratelimit import client_ip
from app.runner import MatchRunner
from app.services import Services


async def get_services(request: Request) -> Services:
    """The ``Services`` that ``create_app`` attached to this app."""
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_runner(services: ServicesDep) -> MatchRunner:
    if services.runner is None:
        raise HttpError(503, "matching is not available on this instance")
    return services.runner


RunnerDep = Annotated[MatchRunner, Depends(get_runner)]


async def base_url(request: Request, services: ServicesDep) -> str:
    """Where article links point: ERRKB_PUBLIC_URL, or the URL this request came in on."""
    return services.public_url or str(request.base_url)


BaseUrlDep = Annotated[str, Depends(base_url)]


async def rate_limit(request: Request, services: ServicesDep) -> None:
    """Anonymous writes: a token bucket per client IP; 429 with Retry-After (target D4)."""
    peer = request.client.host if request.client else None
    key = client_ip(peer, request.headers.get("x-forwarded-for"), services.trusted_proxies)
    retry_after = services.rate_limiter.take(key)
    if retry_after is not None:
        services.metrics.rejected.labels("rate_limited").inc()
        raise HttpError(
            429,
            "too many requests from this address; slow down",
            headers={"Retry-After": str(retry_after)},
        )


RateLimited = Depends(rate_limit)

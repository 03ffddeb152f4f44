"""``Annotated`` dependency aliases for the JSON routes (FastAPI convention, STYLE.md rule 11).

Every dependency here is ``async def`` although none awaits anything: FastAPI
runs a plain ``def`` dependency in the thread pool, and four such hops per
match request cost more than the match of a 10 KB traceback (goal P8).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.http.deps import ServicesDep, rate_limit
from app.http.errors import HttpError
from app.service.runner import MatchRunner

__all__ = ["BaseUrlDep", "RateLimited", "RunnerDep", "ServicesDep"]


async def get_runner(services: ServicesDep) -> MatchRunner:
    if services.runner is None:
        raise HttpError(503, "matching is not available on this instance")
    return services.runner


RunnerDep = Annotated[MatchRunner, Depends(get_runner)]


async def base_url(request: Request, services: ServicesDep) -> str:
    """Where answer links point (issue 24, item 8): never where a forged Host says.

    ERRKB_PUBLIC_URL when set; the URL the request came in on only when its
    Host was checked against ERRKB_ALLOWED_HOSTS names without a wildcard;
    otherwise "": links are relative (``/r/1/key``, ``/articles/id``).
    """
    if services.public_url:
        return services.public_url
    return str(request.base_url) if services.hosts_checked else ""


BaseUrlDep = Annotated[str, Depends(base_url)]


async def rate_limited(request: Request) -> None:
    """Anonymous writes: a token bucket per client IP; 429 with Retry-After (target D4)."""
    rate_limit(request)


RateLimited = Depends(rate_limited)

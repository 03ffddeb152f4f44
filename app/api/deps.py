"""``Annotated`` dependency aliases for the JSON routes (FastAPI convention, STYLE.md rule 11)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.http.deps import get_services, rate_limit
from app.http.errors import HttpError
from app.runner import MatchRunner
from app.services import Services

ServicesDep = Annotated[Services, Depends(get_services)]


def get_runner(services: ServicesDep) -> MatchRunner:
    if services.runner is None:
        raise HttpError(503, "matching is not available on this instance")
    return services.runner


RunnerDep = Annotated[MatchRunner, Depends(get_runner)]


def base_url(request: Request, services: ServicesDep) -> str:
    """Where article links point: ERRKB_PUBLIC_URL, or the URL this request came in on."""
    return services.public_url or str(request.base_url)


BaseUrlDep = Annotated[str, Depends(base_url)]


RateLimited = Depends(rate_limit)

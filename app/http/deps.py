"""Request dependencies both HTTP layers use: the app's services and the per-IP rate limit.

They live here, below ``app.api`` and ``app.web``, so that neither layer
imports the other (STYLE.md dependency rule); both take ``ServicesDep`` as a
FastAPI dependency, and ``app.api.deps`` adds the API's own aliases on top.
``async def``: FastAPI runs a plain ``def`` dependency in the thread pool,
which costs more than the dependency itself (goal P8).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.http.errors import HttpError
from app.http.ratelimit import client_ip
from app.http.state import Services


def get_services(request: Request) -> Services:
    """The ``Services`` that ``create_app`` attached to this app."""
    services: Services = request.app.state.services
    return services


async def app_services(request: Request) -> Services:
    """``get_services`` as a FastAPI dependency."""
    return get_services(request)


ServicesDep = Annotated[Services, Depends(app_services)]


def client_address(request: Request) -> str:
    """The client's IP: the peer, or the forwarded address a trusted proxy vouches for."""
    services = get_services(request)
    peer = request.client.host if request.client else None
    return client_ip(peer, request.headers.get("x-forwarded-for"), services.trusted_proxies)


def rate_limit(request: Request) -> None:
    """Anonymous writes: a token bucket per client IP; 429 with Retry-After (target D4)."""
    services = get_services(request)
    key = client_address(request)
    retry_after = services.rate_limiter.take(key)
    if retry_after is not None:
        services.metrics.rejected.labels("rate_limited").inc()
        raise HttpError(
            429,
            "too many requests from this address; slow down",
            headers={"Retry-After": str(retry_after)},
        )

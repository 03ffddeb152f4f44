"""Request dependencies both HTTP layers use: the app's services and the per-IP rate limit.

They live here, below ``app.api`` and ``app.web``, so that neither layer
imports the other (STYLE.md dependency rule); each layer names its own
``Annotated`` aliases on top of them.
"""

from __future__ import annotations

from fastapi import Request

from app.http.errors import HttpError
from app.http.ratelimit import client_ip
from app.http.state import Services


def get_services(request: Request) -> Services:
    """The ``Services`` that ``create_app`` attached to this app."""
    services: Services = request.app.state.services
    return services


def rate_limit(request: Request) -> None:
    """Anonymous writes: a token bucket per client IP; 429 with Retry-After (target D4)."""
    services = get_services(request)
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

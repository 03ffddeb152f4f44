"""The request middleware: request id, access log, metrics and security headers.

A plain ASGI middleware (no ``BaseHTTPMiddleware``: it would buffer streams
and cost throughput, goal P8). For every HTTP request it

- takes ``X-Request-ID`` when it is a short token, or makes one, and sends it back;
- counts the body bytes the app reads, times the request, and writes one JSON
  access line and the request metrics with the route *template* as label
  (never the path or the query: they may carry a token, target D2);
- adds the security headers of target C14 to every response (CSP, nosniff,
  Referrer-Policy, COOP, X-Frame-Options, ``Cache-Control: no-store`` unless
  the app set one; HSTS only over HTTPS);
- rewrites the few plain-text errors Starlette produces itself (the body
  limit's 413, TrustedHostMiddleware's 400) into the JSON error shape.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.clients import client_kind
from app.http.errors import CODES, error_body
from app.http.logs import ACCESS_LOGGER
from app.metrics import Metrics

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
HSTS = "max-age=31536000; includeSubDomains"
_REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
access_log = logging.getLogger(ACCESS_LOGGER)


def security_headers(*, https: bool) -> list[tuple[bytes, bytes]]:
    """The headers every response carries (target C14)."""
    headers = [
        (b"content-security-policy", CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"x-frame-options", b"DENY"),
    ]
    if https:
        headers.append((b"strict-transport-security", HSTS.encode()))
    return headers


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


@dataclass
class _Exchange:
    request_id: str
    started: float = field(default_factory=time.perf_counter)
    status: int = 500
    body_bytes: int = 0
    rewrite: bytearray | None = None  # the plain-text error body being replaced


class RequestMiddleware:
    """See the module docstring; ``metrics`` is the app's own registry."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics, https: bool = False) -> None:
        self.app = app
        self.metrics = metrics
        self.extra = security_headers(https=https)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = _header(scope, b"x-request-id")
        rid = given.decode() if given and _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        exchange = _Exchange(rid)
        scope.setdefault("state", {})["request_id"] = rid

        async def counting_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                exchange.body_bytes += len(message.get("body", b""))
            return message

        async def decorated_send(message: Message) -> None:
            await self._send(message, exchange, send)

        try:
            await self.app(scope, counting_receive, decorated_send)
        finally:
            self._record(scope, exchange)

    async def _send(self, message: Message, exchange: _Exchange, send: Send) -> None:
        if message["type"] == "http.response.start":
            exchange.status = message["status"]
            headers = list(message.get("headers", ()))
            if exchange.status >= 400 and _plain_text(headers):
                exchange.rewrite = bytearray()
                return
            message = {**message, "headers": self._decorate(headers, exchange)}
        elif message["type"] == "http.response.body" and exchange.rewrite is not None:
            exchange.rewrite += message.get("body", b"")
            if not message.get("more_body", False):
                await self._send_rewritten(exchange, send)
            return
        await send(message)

    def _decorate(
        self, headers: list[tuple[bytes, bytes]], exchange: _Exchange
    ) -> list[tuple[bytes, bytes]]:
        names = {key.lower() for key, _ in headers}
        added = [(b"x-request-id", exchange.request_id.encode()), *self.extra]
        if b"cache-control" not in names:
            added.append((b"cache-control", b"no-store"))
        return headers + added

    async def _send_rewritten(self, exchange: _Exchange, send: Send) -> None:
        assert exchange.rewrite is not None
        text = bytes(exchange.rewrite[:200]).decode("utf-8", "replace") or "request refused"
        code = CODES.get(exchange.status, "error")
        body = json.dumps(error_body(code, text)).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        start = {"type": "http.response.start", "status": exchange.status}
        await send({**start, "headers": self._decorate(headers, exchange)})
        await send({"type": "http.response.body", "body": body})

    def _record(self, scope: Scope, exchange: _Exchange) -> None:
        route = getattr(scope.get("route"), "path", None) or "unmatched"
        elapsed = time.perf_counter() - exchange.started
        method = scope.get("method", "?")
        self.metrics.requests.labels(route, method, str(exchange.status)).inc()
        self.metrics.latency.labels(route).observe(elapsed)
        if exchange.body_bytes:
            self.metrics.body_bytes.labels(route).observe(exchange.body_bytes)
        agent = _header(scope, b"user-agent")
        fields = {
            "request_id": exchange.request_id,
            "method": method,
            "route": route,
            "status": exchange.status,
            "duration_ms": round(elapsed * 1000, 2),
            "client_kind": client_kind(agent.decode("latin-1") if agent else None),
            "body_bytes": exchange.body_bytes,
        }
        level = logging.WARNING if exchange.status >= 500 else logging.INFO
        access_log.log(level, "request", extra={"fields": fields})


def _plain_text(headers: list[tuple[bytes, bytes]]) -> bool:
    for key, value in headers:
        if key.lower() == b"content-type":
            return value.startswith(b"text/plain")
    return False

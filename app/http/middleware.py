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
  limit's 413, TrustedHostMiddleware's 400) into the JSON error shape;
- sends every error as one line of text, ``errkb: <message> (<status> <code>)``,
  to a client that asked for text (curl, wget, ``errkb report``, ``Accept:
  text/plain`` or ``?format=text``): a failing job's hook prints it into its
  own log (target H8). ``/api/`` answers say ``Vary: Accept, Accept-Language,
  User-Agent``, the headers they are negotiated on (H7).
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.http.clients import answer_format, client_kind
from app.http.errors import CODES, clean, error_body
from app.http.logs import ACCESS_LOGGER
from app.matching.decode import decode_text
from app.service.metrics import Metrics

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
HSTS = "max-age=31536000; includeSubDomains"
_REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
VARY = (b"vary", b"Accept, Accept-Language, User-Agent")
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


def _wants_text(scope: Scope) -> bool:
    """Whether the client asked for text, by the rules of the match endpoint's answers."""
    query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
    explicit = query.get("format", [None])[-1]
    accept, agent = _header(scope, b"accept"), _header(scope, b"user-agent")
    kind = client_kind(agent.decode("latin-1") if agent else None)
    return answer_format(explicit, accept.decode("latin-1") if accept else None, kind) == "text"


@dataclass
class _Exchange:
    request_id: str
    scope: Scope
    api: bool
    started: float = field(default_factory=time.perf_counter)
    status: int = 500
    body_bytes: int = 0
    start_headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    rewrite: bytearray | None = None  # an error body being re-sent in the client's form
    rewrite_json: bool = False  # that body is our JSON error shape (else Starlette's text)

    @cached_property
    def wants_text(self) -> bool:
        """Asked only of errors: most requests never pay for the negotiation."""
        return _wants_text(self.scope)


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
        path = str(scope.get("path", ""))
        exchange = _Exchange(rid, scope, api=path.startswith("/api/"))
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
            form = _content_form(headers) if exchange.status >= 400 else None
            if form == "text" or (form == "json" and exchange.wants_text):
                exchange.rewrite = bytearray()
                exchange.rewrite_json = form == "json"
                exchange.start_headers = headers
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
        if exchange.api and b"vary" not in names:
            added.append(VARY)
        return headers + added

    async def _send_rewritten(self, exchange: _Exchange, send: Send) -> None:
        assert exchange.rewrite is not None
        found = _error_of(exchange)
        if found is None:  # JSON that is not an error, e.g. /readyz's 503: sent as it was
            headers = self._decorate(exchange.start_headers, exchange)
            start = {"type": "http.response.start", "status": exchange.status}
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": bytes(exchange.rewrite)})
            return
        code, message = found
        if exchange.wants_text:
            line = " ".join(decode_text(clean(message)).text.split())  # no controls (C8)
            body = f"errkb: {line} ({exchange.status} {code})\n".encode()
            kind = b"text/plain; charset=utf-8"
        else:
            body, kind = json.dumps(error_body(code, message)).encode(), b"application/json"
        kept = [
            (key, value)
            for key, value in exchange.start_headers
            if key.lower() not in (b"content-type", b"content-length")
        ]
        headers = [*kept, (b"content-type", kind), (b"content-length", b"%d" % len(body))]
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


def _content_form(headers: list[tuple[bytes, bytes]]) -> str | None:
    """``text`` or ``json`` for the error bodies this middleware may re-send, else None."""
    for key, value in headers:
        if key.lower() == b"content-type":
            if value.startswith(b"text/plain"):
                return "text"
            if value.startswith(b"application/json"):
                return "json"
    return None


def _error_of(exchange: _Exchange) -> tuple[str, str] | None:
    """Code and message of the buffered body: our error shape or Starlette's plain text.

    None for JSON in another shape (a probe's report), which is no error to rewrite.
    """
    assert exchange.rewrite is not None
    fallback = CODES.get(exchange.status, "error")
    if exchange.rewrite_json:
        try:
            error = json.loads(exchange.rewrite)["error"]
            return str(error["code"]), " ".join(str(error["message"]).split())
        except (ValueError, KeyError, TypeError):
            return None
    text = bytes(exchange.rewrite[:200]).decode("utf-8", "replace").strip()
    return fallback, text or "request refused"

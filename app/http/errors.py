"""One error shape for every failure: ``{"error": {"code", "message"}}``, never the input.

FastAPI's default 422 body echoes the offending input (research note, section
0.1: a pasted ``hf_...`` token came back in ``"input"``); here every message
is built from locations and fixed texts, then redacted and cut (targets A5,
A6, ASVS 16.5.1). ``details`` is optional: a list of short strings (a
validation error per field, a lint problem per line).

The handlers map the error tree (STYLE.md rule 12): ``HttpError`` carries its
status; ``InputError`` is 400, ``Busy`` 503 with Retry-After, ``StoreError``
503, anything else a 500 that says nothing about its cause.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response

from app.errors import Busy, InputError, StoreError
from app.matching.redact import redact

log = logging.getLogger(__name__)

CODES: Mapping[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "body_timeout",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal",
    503: "unavailable",
}
MESSAGE_CHARS = 1000
DETAIL_CHARS = 300
MAX_DETAILS = 50


class HttpError(Exception):
    """An answer other than success, raised by the HTTP layers; safe to show as it is."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
        details: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code or CODES.get(status, "error")
        self.message = message
        self.headers = dict(headers or {})
        self.details = tuple(details)


def clean(text: str, limit: int = MESSAGE_CHARS) -> str:
    """Redacted and cut: what any error message passes through before it is sent."""
    return redact(text[: limit * 2]).text[:limit]


def error_body(code: str, message: str, details: Iterable[str] = ()) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": clean(message)}
    shown = [clean(d, DETAIL_CHARS) for d in list(details)[:MAX_DETAILS]]
    if shown:
        error["details"] = shown
    return {"error": error}


def error_response(
    status: int,
    message: str,
    *,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
    details: Iterable[str] = (),
) -> JSONResponse:
    body = error_body(code or CODES.get(status, "error"), message, details)
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


def validation_details(errors: Sequence[Mapping[str, Any]]) -> list[str]:
    """``body.lang: Input should be 'en' or 'zh'`` per error; no input values (target A6)."""
    lines = []
    for err in errors:
        where = ".".join(str(part)[:64] for part in err.get("loc", ()))
        lines.append(f"{where or 'request'}: {err.get('msg', 'invalid')}")
    return lines


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HttpError)
    return error_response(
        exc.status, exc.message, code=exc.code, headers=exc.headers, details=exc.details
    )


async def _starlette_error(_request: Request, exc: Exception) -> Response:
    """404, 405 and the built-in body limit's 413: fixed texts, in our shape."""
    assert isinstance(exc, StarletteHTTPException)
    message = exc.detail if isinstance(exc.detail, str) else "request refused"
    return error_response(exc.status_code, message, headers=exc.headers)


async def _validation_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    details = validation_details(exc.errors())
    return error_response(
        422, "the request is not valid: " + "; ".join(details[:3]), details=details
    )


async def _input_error(_request: Request, exc: Exception) -> Response:
    return error_response(400, str(exc))


async def _busy(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Busy)
    return error_response(503, str(exc), code="busy", headers={"Retry-After": str(exc.retry_after)})


async def _store_error(_request: Request, exc: Exception) -> Response:
    log.error("database unavailable: %s", type(exc.__cause__ or exc).__name__)
    return error_response(503, "the database is unavailable; try again later")


async def _unexpected(_request: Request, exc: Exception) -> Response:
    """Logs the type and the frames, never ``str(exc)``: a message may quote the input."""
    frames = "; ".join(
        f"{f.filename}:{f.lineno} in {f.name}" for f in traceback.extract_tb(exc.__traceback__)
    )
    log.error("unhandled %s at %s", type(exc).__name__, frames[-2000:])
    return error_response(500, "internal error; the request id identifies it in the logs")


def install_error_handlers(app: FastAPI) -> None:
    """Every error leaves in the one shape; see the module docstring for the mapping."""
    app.add_exception_handler(HttpError, _http_error)
    app.add_exception_handler(StarletteHTTPException, _starlette_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(InputError, _input_error)
    app.add_exception_handler(Busy, _busy)
    app.add_exception_handler(StoreError, _store_error)
    app.add_exception_handler(Exception, _unexpected)

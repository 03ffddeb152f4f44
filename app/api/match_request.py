"""Reading a match request in any of its forms, and answering it in JSON or plain text.

Forms (issue 4): JSON ``{text, env?, lang?, top_k?}``; a raw body of any
other type (``text/plain``, ``application/octet-stream`` and what ``curl
--data-binary`` sends, ``application/x-www-form-urlencoded``), gzip-encoded
or not; a multipart upload (``curl -F log=@train.log``; a ``.gz`` file is
expanded). JSON sent as ``text/plain`` is log text, not JSON (target C17).
The body's limits and the gzip handling are in ``app.http.bodies``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.datastructures import UploadFile
from starlette.responses import PlainTextResponse, Response

from app.api.answers import match_json, text_answer
from app.api.schemas import MatchRequest
from app.http.bodies import BodyLimits, Grow, read_body, read_form, upload_bytes
from app.http.errors import HttpError
from app.service.runner import Answer

DEFAULT_TOP_K = 5
_IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_JSON_TYPES = ("application/json",)


@dataclass(frozen=True)
class MatchInput:
    """What the body said: the log's bytes and, for JSON and forms, the options."""

    data: bytes
    lang: str | None = None
    top_k: int | None = None
    env: dict[str, str] = field(default_factory=dict)


def media_type(request: Request) -> str:
    return (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()


async def read_match_input(request: Request, limits: BodyLimits, grow: Grow) -> MatchInput:
    """The match request in whichever form it came (see the module docstring)."""
    media = media_type(request)
    if media == "multipart/form-data":
        return await _from_form(request, limits, grow)
    body = await read_body(request, limits, grow)
    if media in _JSON_TYPES or media.endswith("+json"):
        return _from_json(body)
    return MatchInput(body)


def _from_json(body: bytes) -> MatchInput:
    try:
        parsed = MatchRequest.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False, include_context=False)
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in errors]) from None
    data = parsed.text.encode("utf-8", "replace")
    return MatchInput(data, parsed.lang, parsed.top_k, dict(parsed.env or {}))


async def _from_form(request: Request, limits: BodyLimits, grow: Grow) -> MatchInput:
    form = await read_form(request, limits, grow)
    try:
        upload = form.get("log")
        if not isinstance(upload, UploadFile):
            upload = next((v for v in form.values() if isinstance(v, UploadFile)), None)
        text = form.get("text")
        if upload is not None:
            data = await upload_bytes(upload, limits, grow)
        elif isinstance(text, str):
            data = text.encode("utf-8", "replace")
        else:
            raise HttpError(
                422, "send the log as a file field 'log' (curl -F log=@train.log) or a field 'text'"
            )
        lang, top_k = form.get("lang"), form.get("top_k")
        return MatchInput(
            data,
            lang if isinstance(lang, str) else None,
            int(top_k) if isinstance(top_k, str) and top_k.isdigit() else None,
        )
    finally:
        await form.close()


def top_k_of(*choices: int | None) -> int:
    """The first choice given, clamped to 1..50."""
    chosen = next((c for c in choices if c is not None), DEFAULT_TOP_K)
    return max(1, min(50, chosen))


def idempotency_key(request: Request) -> str | None:
    """The SHA-256 of a sane ``Idempotency-Key`` (target F5).

    Stored hashed: the key is whatever the client chose, and nothing a client
    sends is stored as it came (target A5); retries on any replica agree.
    """
    value = request.headers.get("idempotency-key")
    if value is None or not _IDEMPOTENCY_KEY.fullmatch(value):
        return None
    return hashlib.sha256(value.encode()).hexdigest()


def respond(answer: Answer, *, fmt: str, lang: str, base_url: str) -> Response:
    """The answer as JSON (``MatchResponse``) or as a few lines of plain text."""
    if fmt == "text":
        return PlainTextResponse(
            text_answer(answer.result, answer.live, lang=lang, base_url=base_url)
        )
    payload = match_json(
        answer.result,
        answer.live,
        lang=lang,
        base_url=base_url,
        match_event_id=answer.match_event_id,
    )
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(body, media_type="application/json")

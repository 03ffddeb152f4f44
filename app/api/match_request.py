"""Reading a match request in any of its forms into the one ``Ask`` the runner answers.

Forms (issue 4): JSON ``{text, env?, lang?, top_k?}``; a raw body of any
other type (``text/plain``, ``application/octet-stream`` and what ``curl
--data-binary`` sends, ``application/x-www-form-urlencoded``), gzip-encoded
or not; a multipart upload (``curl -F log=@train.log``; a ``.gz`` file is
expanded). JSON sent as ``text/plain`` is log text, not JSON (target C17).
The body's limits and the gzip handling are in ``app.http.bodies``.

The walk of a request (issue 22): ``read_ask`` turns the body (JSON checked
against ``schemas.MatchRequest``) and the query into a ``service.runner.Ask``
whose ``options`` go to ``match_text`` unchanged; ``answers.respond`` renders
the answer in the format the client asked for.
"""

from __future__ import annotations

import hashlib
import re
from typing import NamedTuple

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from app.api.schemas import ENV_KEYS, MatchRequest
from app.http.bodies import BodyLimits, Grow, read_body, read_form, upload_bytes
from app.http.clients import client_kind, negotiate_lang
from app.http.deps import client_address
from app.http.errors import HttpError
from app.http.state import Services
from app.matching.decode import is_blank
from app.matching.flattened import looks_flattened, unflatten
from app.matching.pipeline import MatchOptions
from app.service.runner import Ask

DEFAULT_TOP_K = 5
_IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_JSON_TYPES = ("application/json",)


class _Body(NamedTuple):
    """What the body said, before the query and the headers have their say."""

    data: bytes
    lang: str | None = None
    top_k: int | None = None
    env: dict[str, str] | None = None


CURL_D_HINT = (
    "your client stripped the log's newlines (curl -d / --data does); "
    "send the file with --data-binary @train.log for a better answer"
)
_FORM = "application/x-www-form-urlencoded"


class Asked(NamedTuple):
    """The request to answer, and hints about how it was sent."""

    ask: Ask
    hints: tuple[str, ...] = ()


async def read_ask(
    request: Request, services: Services, grow: Grow, *, lang: str | None, top_k: int | None
) -> Asked:
    """The request as an ``Ask``: the body's fields first, then the query's, then defaults.

    The language: the field, the parameter, Accept-Language, the default.
    """
    body = await _read(request, services.limits, grow)
    if is_blank(body.data):
        raise HttpError(422, "the log is empty")
    accept_language = request.headers.get("accept-language")
    options = MatchOptions(
        lang=negotiate_lang(body.lang or lang, accept_language, services.default_lang),
        top_k=top_k_of(body.top_k, top_k),
        env=dict(body.env or {}),
        windows=True,  # the stored result page (the answer's permalink) draws these lines
    )
    kind = client_kind(request.headers.get("user-agent"))
    key = idempotency_key(request)
    digest = hashlib.sha256(body.data).hexdigest() if key is not None else None
    data = body.data
    hints: tuple[str, ...] = ()
    if media_type(request) == _FORM and looks_flattened(data):
        data, hints = unflatten(data), (CURL_D_HINT,)
    return Asked(Ask(data, options, kind, key, digest, client_address(request)), hints)


def media_type(request: Request) -> str:
    return (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()


async def _read(request: Request, limits: BodyLimits, grow: Grow) -> _Body:
    """The match request in whichever form it came (see the module docstring)."""
    media = media_type(request)
    if media == "multipart/form-data":
        return await _from_form(request, limits, grow)
    body = await read_body(request, limits, grow)
    if media in _JSON_TYPES or media.endswith("+json"):
        return _from_json(body)
    return _Body(body)


MAX_JSON_STRINGS = 4 * ENV_KEYS + 64
"""Most strings a JSON match request can need: text, lang, and ``env``'s names and versions."""


def _from_json(body: bytes) -> _Body:
    """Parse and validate; a body with more strings than any valid one is refused unparsed.

    Parsing an ``env`` of millions of keys holds the event loop for seconds (and
    the GIL, so a thread would not help) before ``max_length`` can say no; two
    byte counts, at memchr speed, bound the strings first (issue 24, target I3).
    """
    if _strings_at_least(body) > MAX_JSON_STRINGS:
        raise HttpError(
            422,
            f"the JSON body has too many fields: env takes at most {ENV_KEYS} entries, "
            "and a log goes in 'text' as one string",
        )
    try:
        parsed = MatchRequest.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False, include_context=False)
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in errors]) from None
    data = parsed.text.encode("utf-8", "replace")
    return _Body(data, parsed.lang, parsed.top_k, dict(parsed.env or {}))


def _strings_at_least(body: bytes) -> int:
    """A lower bound on the JSON strings in ``body``: each opens with a quote that no
    backslash escapes, and quotes inside strings are escaped (``\\"``)."""
    if len(body) < 64 * 1024:
        return 0  # too small to be costly: the parser's own limits answer
    quotes = body.count(b'"') - body.count(b'\\"')
    return quotes // 2


async def _from_form(request: Request, limits: BodyLimits, grow: Grow) -> _Body:
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
        return _Body(
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

"""``POST /api/v1/match``: a traceback or a job log in, the articles that fix it out.

The route only chooses: the client kind, the language (field or parameter,
then Accept-Language, then the default), the format (``?format=``, then
Accept, then the client kind); ``api.match_request`` reads the body,
``service.runner.MatchRunner`` admits, caches and matches, ``api.answers`` renders.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api.deps import BaseUrlDep, RateLimited, RunnerDep, ServicesDep
from app.api.match_request import idempotency_key, read_match_input, respond, top_k_of
from app.api.schemas import Lang, MatchRequest, MatchResponse, errors
from app.http.clients import answer_format, client_kind, negotiate_lang
from app.http.errors import HttpError
from app.matching.decode import is_blank
from app.service.runner import Ask

REQUEST_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "application/json": {"schema": MatchRequest.model_json_schema()},
        "text/plain": {"schema": {"type": "string"}},
        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {
                    "log": {"type": "string", "format": "binary"},
                    "lang": {"type": "string", "enum": ["en", "zh"]},
                    "top_k": {"type": "integer", "minimum": 1, "maximum": 50},
                },
                "required": ["log"],
            }
        },
    },
}
RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": MatchResponse,
        "description": "JSON for programs and bots; a few lines of text for curl and job hooks.",
        "content": {"text/plain": {"schema": {"type": "string"}}},
    },
    **errors(400, 408, 413, 415, 422, 429, 503),
}


def build_router(max_body_bytes: int) -> APIRouter:
    """The router, with Starlette's streamed body limit set to the wire limit (C1, C2)."""
    router = APIRouter(tags=["matching"], max_body_size=max_body_bytes)
    router.add_api_route(
        "/api/v1/match",
        match,
        methods=["POST"],
        dependencies=[RateLimited],
        response_class=Response,
        responses=RESPONSES,
        openapi_extra={"requestBody": REQUEST_BODY},
        summary="Match a traceback or a job log",
    )
    return router


async def match(
    request: Request,
    services: ServicesDep,
    runner: RunnerDep,
    base_url: BaseUrlDep,
    lang: Annotated[Lang | None, Query(description="en or zh.")] = None,
    top_k: Annotated[int | None, Query(ge=1, le=50, description="Matches to return.")] = None,
    format: Annotated[
        Literal["json", "text"] | None, Query(description="Override the guessed format.")
    ] = None,
) -> Response:
    """JSON, raw text (gzip welcome) or a multipart file; see the request body's types."""
    kind = client_kind(request.headers.get("user-agent"))
    with runner.admission() as admission:
        given = await read_match_input(request, services.limits, admission.grow)
        if is_blank(given.data):
            raise HttpError(422, "the log is empty")
        chosen = negotiate_lang(
            given.lang or lang, request.headers.get("accept-language"), services.default_lang
        )
        ask = Ask(
            data=given.data,
            lang=chosen,
            top_k=top_k_of(given.top_k, top_k),
            env=given.env,
            client_kind=kind,
            idempotency_key=idempotency_key(request),
        )
        answer = await runner.answer(ask, admission)
    fmt = answer_format(format, request.headers.get("accept"), kind)
    return respond(answer, fmt=fmt, lang=chosen, base_url=base_url)

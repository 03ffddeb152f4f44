"""``POST /api/v1/match``: a traceback or a job log in, the articles that fix it out.

The walk: ``api.match_request.read_ask`` reads the body and the query into one
``Ask`` (the client kind, the language: field or parameter, then
Accept-Language, then the default); ``service.runner.MatchRunner`` admits,
caches and matches; the route picks the format (``?format=``, then Accept,
then the client kind) and ``api.answers.respond`` renders it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.api.answers import Rendered, respond
from app.api.deps import BaseUrlDep, RateLimited, RunnerDep, ServicesDep
from app.api.examples import match_examples
from app.api.match_request import read_ask
from app.api.reply import build_reply, result_url
from app.api.schemas import AnyMatchAnswer, Lang, MatchRequest, errors
from app.errors import StoreError
from app.http.clients import Format, answer_format
from app.http.errors import HttpError
from app.http.state import Services
from app.service.result_views import bounded, build_view, store_view
from app.service.runner import Answer, Ask
from app.store.engine import reader
from app.store.match_events import idempotent_body, view_text

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
        "model": AnyMatchAnswer,
        "description": "JSON for programs (`?format=json`), a chat platform's message body "
        "(`?format=slack|feishu|dingtalk|wecom`), or a few lines of text for curl and job hooks "
        "(`?format=text`).",
        "content": match_examples(),
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
    format: Annotated[Format | None, Query(description="Override the guessed format.")] = None,
) -> Response:
    """JSON, raw text (gzip welcome) or a multipart file; see the request body's types."""
    with runner.admission() as admission:
        ask, hints = await read_ask(request, services, admission.grow, lang=lang, top_k=top_k)
        await check_idempotency(services, ask)
        answer = await runner.answer(ask, admission)
    fmt = answer_format(format, request.headers.get("accept"), ask.client_kind)
    link = await result_link(services, answer, ask, base_url)
    reply = build_reply(
        answer.result,
        answer.live,
        lang=ask.options.lang,
        base_url=base_url,
        result_link=link,
        hints=hints,
    )
    rendered = Rendered(answer.result, reply, answer.live.revision, answer.match_event_id)
    return respond(rendered, fmt=fmt)


async def check_idempotency(services: Services, ask: Ask) -> None:
    """422 when the ``Idempotency-Key`` was stored with another body (issue 24, item 8).

    A database that cannot answer costs the check, never the match. Two different
    bodies racing with one new key: the second still gets the first's event.
    """
    if ask.idempotency_key is None:
        return
    try:
        stored = await run_in_threadpool(_stored_body, services.engine, ask.idempotency_key)
    except StoreError:
        return
    if stored is not None and stored != ask.idempotency_body:
        raise HttpError(
            422,
            "this Idempotency-Key was used with a different body",
            code="idempotency_key_reused",
        )


def _stored_body(engine: Engine, key: str) -> str | None:
    with Session(reader(engine)) as session:
        return idempotent_body(session, idempotency_key=key)


async def result_link(services: Services, answer: Answer, ask: Ask, base_url: str) -> str | None:
    """The stored result page of this answer (``/r/<id>/<key>``), when it was stored.

    None when the client's allowance of stored text is spent (``StorageBudget``).
    """
    if answer.match_event_id is None or not answer.texts_stored:
        return None
    if answer.view_key is not None:  # stored with the event by the runner
        return result_url(base_url, answer.match_event_id, answer.view_key)
    lang = ask.options.lang
    view = bounded(build_view(answer.result, lang=lang, kb_revision=answer.live.revision))
    runner = services.runner
    if runner is not None and not runner.storage.take_texts(ask.client, [view_text(view)]):
        return None
    key = await run_in_threadpool(store_view, services.engine, answer.match_event_id, view)
    return result_url(base_url, answer.match_event_id, key)

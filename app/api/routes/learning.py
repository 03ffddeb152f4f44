"""What users teach the KB: ``POST /api/v1/feedback`` and ``GET /api/v1/unmatched``.

Feedback comments are free text and may quote a log: they are decoded like a
paste (ANSI colours and control sequences gone, so a coloured secret is seen
whole) and redacted before they are stored (target A5). The unmatched list is
the KB's to-do list: error events that matched nothing, grouped by fingerprint.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from app.api.deps import RateLimited, ServicesDep
from app.api.schemas import (
    FeedbackIn,
    FeedbackOut,
    UnmatchedList,
    UnmatchedOut,
    errors,
)
from app.errors import InputError
from app.http.deps import client_address
from app.http.errors import HttpError
from app.matching.decode import decode_text
from app.matching.redact import redact
from app.store.engine import reader
from app.store.match_events import (
    FeedbackStored,
    event_id_by_key,
    list_unmatched,
    record_verdict,
)

SMALL_BODY = 64 * 1024
router = APIRouter(tags=["learning"], max_body_size=SMALL_BODY)


def _store_feedback(engine: Engine, given: FeedbackIn, client: str) -> FeedbackStored | None:
    comment = redact(decode_text(given.comment).text).text if given.comment else None
    with Session(engine) as session:
        event_id = event_id_by_key(session, result_key=given.result_key)
        if event_id is None:
            return None
        return record_verdict(
            session,
            match_event_id=event_id,
            verdict=given.verdict,
            right_article_id=given.right_article_id,
            comment=comment,
            client=client,
        )


@router.post(
    "/api/v1/feedback",
    status_code=status.HTTP_201_CREATED,
    response_model=FeedbackOut,
    dependencies=[RateLimited],
    responses={
        200: {"model": FeedbackOut, "description": "An earlier verdict replaced."},
        **errors(400, 404, 413, 422, 429, 503),
    },
)
async def feedback(
    request: Request, response: Response, services: ServicesDep, given: FeedbackIn
) -> FeedbackOut:
    """Did the top answer fix it? Which article was right? Shows in the article's statistics.

    The answer is named by its result key, which only its asker saw; each client
    (address) holds one verdict per answer, and a second one replaces the first.
    """
    kb = services.kb.current.kb
    if given.right_article_id is not None and given.right_article_id not in kb.articles:
        raise HttpError(404, "right_article_id names no article of the KB")
    client = client_address(request)
    try:
        stored = await run_in_threadpool(_store_feedback, services.engine, given, client)
    except InputError as exc:
        raise HttpError(404, "no answer with this result key") from exc
    if stored is None:
        raise HttpError(404, "no answer with this result key")
    if stored.replaced:
        response.status_code = status.HTTP_200_OK
    return FeedbackOut(id=stored.id, result_key=given.result_key, replaced=stored.replaced)


def _clusters(engine: Engine, limit: int, offset: int) -> list[UnmatchedOut]:
    with Session(reader(engine)) as session:
        rows = list_unmatched(session, limit=limit, offset=offset)
    return [UnmatchedOut.model_validate(row, from_attributes=True) for row in rows]


@router.get("/api/v1/unmatched", response_model=UnmatchedList, responses=errors(422, 503))
async def unmatched(
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
) -> UnmatchedList:
    """Error events no article matched, most frequent first, with a redacted sample."""
    clusters = await run_in_threadpool(_clusters, services.engine, limit, offset)
    return UnmatchedList(clusters=clusters, limit=limit, offset=offset)

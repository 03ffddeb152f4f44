"""The paste form's POST, the result permalink and the feedback buttons.

``POST /match`` reads the form (text area or file, gzip expanded, the same
limits as the API), asks the same ``MatchRunner`` as the API, stores the
redacted view on the match event and redirects (303) to ``/r/<id>/<key>``;
the permalink renders only what was stored. When the database cannot take
the view the answer is rendered at once, without a permalink: the user still
gets the fix (issue 4: a DB failure must not cost the answer).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from app.errors import Busy, InputError, StoreError
from app.http.bodies import read_form, upload_bytes
from app.http.deps import ServicesDep, client_address, rate_limit
from app.http.errors import HttpError
from app.http.state import Services
from app.matching.decode import is_blank
from app.matching.pipeline import MatchOptions
from app.service.result_views import bounded, build_view, store_view
from app.service.runner import Answer, Ask
from app.store.authoring import find_cluster
from app.store.engine import reader
from app.store.match_events import record_feedback, stored_view, view_text
from app.web.guard import cross_origin, token_matches
from app.web.i18n import refusal
from app.web.nearest import nearest
from app.web.pages import message_page, page_lang, render
from app.web.result_page import result_context

log = logging.getLogger(__name__)
TOP_K = 5
VERDICTS = ("fixed", "wrong")


async def _form_input(request: Request, services: Services, grow: Any) -> tuple[bytes, str | None]:
    """The log (file first, then the text area) and the form's language."""
    form = await read_form(request, services.limits, grow)
    try:
        upload, text, lang = form.get("log"), form.get("text"), form.get("lang")
        data = b""
        if isinstance(upload, UploadFile) and upload.filename:
            data = await upload_bytes(upload, services.limits, grow)
        if is_blank(data) and isinstance(text, str):
            data = text.encode("utf-8", "replace")
        return data, lang if isinstance(lang, str) else None
    finally:
        await form.close()


def _paste_again(
    request: Request, status: int, message: str, headers: Mapping[str, str] | None = None
) -> Response:
    """The paste page again, with what went wrong (413, 415, 429, 503, an empty paste)."""
    error = refusal(page_lang(request), status, message)
    response = render(request, "paste.html", {"error": error, "examples": []}, status=status)
    response.headers.update(headers or {})
    return response


async def match_form(request: Request, services: ServicesDep) -> Response:
    """``POST /match``: see the module docstring.

    The rate limit is checked here, not as a dependency: a refused paste gets
    the paste page again with the reason, not the API's error answer.
    """
    if cross_origin(request):
        return message_page(request, 403, "error_title", "cross-origin form posts are refused")
    if services.runner is None:
        return _paste_again(request, 503, "matching is not available on this instance")
    try:
        rate_limit(request)
        with services.runner.admission() as admission:
            data, lang = await _form_input(request, services, admission.grow)
            if is_blank(data):
                return _paste_again(request, 422, "Paste a log or choose a file.")
            lang = lang if lang in ("en", "zh") else page_lang(request)
            options = MatchOptions(lang=lang, top_k=TOP_K, windows=True)
            client = client_address(request)
            ask = Ask(data, options, "web", client=client)
            answer = await services.runner.answer(ask, admission)
            view = build_view(answer.result, lang=lang, kb_revision=answer.live.revision)
            view["input"]["lines"] = line_count(data)
            if not answer.result.matches:
                view |= await run_in_threadpool(nearest, answer.live, data, answer.result, lang)
    except HttpError as exc:
        return _paste_again(request, exc.status, exc.message, exc.headers)
    except Busy as exc:
        return _paste_again(request, 503, str(exc), {"Retry-After": str(exc.retry_after)})
    return await _store_and_redirect(request, services, answer, view, client)


def line_count(data: bytes) -> int:
    """Lines as a reader counts them: a final newline ends the last line, it starts none."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


async def _store_and_redirect(
    request: Request, services: Services, answer: Answer, view: dict[str, Any], client: str
) -> Response:
    """The permalink (303), or the page itself when no view could be stored: the database
    refused, or the client's allowance of stored text is spent (``StorageBudget``)."""
    key = None  # the page's view (line count, nearest articles) is attached here
    stored = bounded(view)
    runner = services.runner
    if (
        answer.match_event_id is not None
        and answer.texts_stored
        and (runner is None or runner.storage.take_texts(client, [view_text(stored)]))
    ):
        key = await run_in_threadpool(store_view, services.engine, answer.match_event_id, stored)
    if key is None:
        context = result_context(request, services.kb.current, view, None)
        return render(request, "result.html", context)
    return RedirectResponse(f"/r/{answer.match_event_id}/{key}", status_code=303)


def _stored_view(engine: Engine, event_id: int, key: str) -> dict[str, Any] | None:
    with Session(reader(engine)) as session:
        found = stored_view(session, match_event_id=event_id)
    if found is None or not hmac.compare_digest(found[0].encode(), key.encode()):
        return None
    return found[1]


async def permalink(request: Request, services: ServicesDep) -> Response:
    """``GET /r/<id>/<key>``: the stored, redacted answer."""
    found = await _lookup(request, services)
    if found is None:
        return message_page(request, 404, "not_found", lead_key="not_found_lead")
    event_id, key, view = found
    link = f"/r/{event_id}/{key}"
    seen = None
    if not view.get("matches") and view.get("fingerprint"):
        seen = await run_in_threadpool(_seen, services.engine, str(view["fingerprint"]))
    context = result_context(request, services.kb.current, view, link, seen=seen)
    context["thanks"] = request.query_params.get("thanks") == "1"
    return render(request, "result.html", context)


def _seen(engine: Engine, fingerprint: str) -> int | None:
    """How often this unknown error has been seen (None when the store cannot say)."""
    try:
        with Session(reader(engine)) as session:
            cluster = find_cluster(session, fingerprint=fingerprint)
    except StoreError:
        return None
    return cluster.count if cluster is not None else None


async def _lookup(request: Request, services: Services) -> tuple[int, str, dict[str, Any]] | None:
    raw_id, key = request.path_params["event_id"], request.path_params["key"]
    if not raw_id.isdigit() or len(raw_id) > 18 or not 8 <= len(key) <= 32:
        return None
    view = await run_in_threadpool(_stored_view, services.engine, int(raw_id), key)
    return None if view is None else (int(raw_id), key, view)


async def feedback_form(request: Request, services: ServicesDep) -> Response:
    """``POST /r/<id>/<key>/feedback``: same-origin and token checked, then stored."""
    if cross_origin(request):
        return message_page(request, 403, "error_title", "cross-origin form posts are refused")
    form = await request.form(max_files=0, max_fields=5, max_part_size=4096)
    verdict, right, token = form.get("verdict"), form.get("right_article_id"), form.get("csrf")
    if not token_matches(request, token if isinstance(token, str) else None):
        return message_page(request, 403, "error_title", "the form's token does not match")
    try:
        rate_limit(request)
    except HttpError as exc:
        return message_page(request, exc.status, "error_title", exc.message)
    found = await _lookup(request, services)
    if found is None:
        return message_page(request, 404, "not_found", lead_key="not_found_lead")
    right_id = (
        right if isinstance(right, str) and right in services.kb.current.kb.articles else None
    )
    if verdict not in VERDICTS:
        return message_page(request, 422, "error_title", "verdict must be fixed or wrong")
    try:
        client = client_address(request)
        await run_in_threadpool(
            _feedback, services.engine, found[0], (str(verdict), right_id, client)
        )
    except (InputError, StoreError):
        return message_page(request, 503, "error_title", "feedback could not be stored")
    return RedirectResponse(f"/r/{found[0]}/{found[1]}?thanks=1", status_code=303)


def _feedback(engine: Engine, event_id: int, given: tuple[str, str | None, str]) -> int:
    """One verdict per event per client: a second click replaces the first (issue 24)."""
    verdict, right_id, client = given
    with Session(engine) as session:
        return record_feedback(
            session,
            match_event_id=event_id,
            verdict=verdict,
            right_article_id=right_id,
            client=client,
        )

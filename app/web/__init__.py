"""The HTML pages (issue 5): paste a log, read the fix, browse articles, see unknown errors.

Server-rendered Jinja2 that works without JavaScript; ``static/app.js`` only
adds copy buttons and the file drop. Nothing here imports ``app.api``: shared
plumbing comes from ``app.http``, matching from ``app.service.runner``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from app.web.browse import (
    article_page,
    cluster_draft_page,
    paste_page,
    unmatched_page,
)
from app.web.pages import STATIC
from app.web.results import feedback_form, match_form, permalink
from app.web.search_page import article_list

SMALL_FORM = 16 * 1024
STATIC_CACHE = "public, max-age=3600"


def build_router(max_body_bytes: int) -> APIRouter:
    """The pages; the paste form takes bodies up to the wire limit, the rest small ones."""
    router = APIRouter(include_in_schema=False)
    router.add_api_route("/", paste_page, methods=["GET"])
    router.add_api_route("/articles", article_list, methods=["GET"])
    router.add_api_route("/articles/{article_id}", article_page, methods=["GET"])
    router.add_api_route("/unmatched", unmatched_page, methods=["GET"])
    router.add_api_route("/unmatched/{fingerprint}/draft", cluster_draft_page, methods=["GET"])
    router.add_api_route("/r/{event_id}/{key}", permalink, methods=["GET"])
    router.add_api_route(
        "/r/{event_id}/{key}/feedback",
        feedback_form,
        methods=["POST"],
        max_body_size=SMALL_FORM,
    )
    router.add_api_route("/match", match_form, methods=["POST"], max_body_size=max_body_bytes)
    return router


class CachedStatic(StaticFiles):
    """Static files with a Cache-Control of their own (the middleware would say no-store).

    The pages ask for ``app.css?v=N``: a change of the files bumps ``N``.
    """

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["cache-control"] = STATIC_CACHE
        return response


def static_mount() -> Mount:
    """``/static``: the stylesheet, the script, the icon."""
    return Mount("/static", app=CachedStatic(directory=STATIC), name="static")

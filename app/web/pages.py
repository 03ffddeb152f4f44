"""Rendering a page: the Jinja environment, the language, the cookies every page sets.

One ``Environment`` per app with ``autoescape=True`` for every template, not
only ``.html`` ones (target C11), and ``StrictUndefined`` so a misspelt name
fails a test instead of printing nothing. Pages choose their language with
``i18n.choose_lang``; a ``?lang=`` choice is remembered in a cookie.
Jinja is imported when the environment is first built (by the service's
warm-up, or the first page), not at import: ``errkb serve`` is ready sooner.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse

from app.http.clients import LANGS
from app.http.deps import get_services
from app.web.cjk import typeset
from app.web.guard import csrf_token, set_csrf_cookie
from app.web.i18n import LANG_COOKIE, LANG_NAMES, choose_lang, refusal, words
from app.web.markdown import render_markdown
from app.web.markdown import warm as warm_markdown

if TYPE_CHECKING:
    import jinja2

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
YEAR = 365 * 24 * 3600
SPELLED_RANKS = 16


@cache
def environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["markdown"] = _markdown
    env.filters["cjk"] = typeset
    env.filters["num"] = _number
    env.filters["ranks"] = rank_ranges
    return env


def warm_pages() -> None:
    """Import Jinja and markdown-it and build both now, with the CJK patterns (the warm-up)."""
    environment()
    warm_markdown()
    typeset("预热 warm-up")


def _number(value: int) -> str:
    """A count with thousands separators (``12,345``), the same in both languages."""
    return f"{int(value):,}"


def rank_ranges(ranks: list[int]) -> str:
    """Every rank; beyond 16 of them, runs shortened: ``0–63, 70``."""
    unique = sorted(set(ranks))
    if len(unique) <= SPELLED_RANKS:
        return ", ".join(str(rank) for rank in unique)
    spans: list[list[int]] = []
    for rank in unique:
        if spans and rank == spans[-1][1] + 1:
            spans[-1][1] = rank
        else:
            spans.append([rank, rank])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in spans)


def _markdown(text: str) -> Any:
    """Sanitised article HTML, marked safe for the template (it passed nh3)."""
    return Markup(render_markdown(text))  # noqa: S704 (nh3 sanitised it)


def page_lang(request: Request) -> str:
    services = get_services(request)
    return choose_lang(
        request.query_params.get("lang"),
        request.cookies.get(LANG_COOKIE),
        request.headers.get("accept-language"),
        services.default_lang,
    )


def lang_link(request: Request, lang: str) -> str:
    """This page in ``lang``: same path and query, ``lang`` replaced."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k not in ("lang", "thanks")]
    return f"{request.url.path}?{urlencode([*params, ('lang', lang)])}"


def render(
    request: Request, name: str, context: dict[str, Any], *, status: int = 200
) -> HTMLResponse:
    """The page ``name`` in the request's language, with the language and token cookies."""
    lang = page_lang(request)
    token = csrf_token(request)
    other = next(code for code in LANGS if code != lang)
    values = {
        "lang": lang,
        "t": words(lang),
        "other_lang": other,
        "other_lang_name": LANG_NAMES[other],
        "other_lang_link": lang_link(request, other),
        "csrf": token,
        "path": request.url.path,
        **context,
    }
    html = environment().get_template(name).render(values)
    response = HTMLResponse(html, status_code=status)
    set_csrf_cookie(request, response, token)
    if request.query_params.get("lang") in LANGS:
        response.set_cookie(LANG_COOKIE, lang, max_age=YEAR, samesite="lax", path="/")
    return response


def message_page(
    request: Request, status: int, title_key: str, message: str = "", *, lead_key: str = ""
) -> HTMLResponse:
    """A small page for 403, 404 and refused input, in the reader's language."""
    lang = page_lang(request)
    text = refusal(lang, status, message) or (words(lang)[lead_key] if lead_key else "")
    return render(request, "message.html", {"title_key": title_key, "message": text}, status=status)

"""``GET /articles``: the library, its filters, and a search that ranks (issue 21).

The text search is ``app.articles.search`` (BM25F over both languages). A
query that reads like a pasted error line is also run through the matcher,
and the articles it recognises come first, marked: a reader who pastes
``RuntimeError: CUDA error: device-side assert triggered`` into the search
box wants what the paste page would have said.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from app.articles.model import Article
from app.articles.search import MAX_QUERY, Hit, marked, rank_articles
from app.http.deps import ServicesDep
from app.matching.pipeline import MatchOptions, match_text
from app.service.article_states import article_lifecycles
from app.service.kb import LiveKb
from app.web.cjk import typeset
from app.web.pages import page_lang, render

ERROR_LINE = re.compile(r"(?:[A-Z]\w*(?:Error|Exception|Exit)\b|\berror\b|\bfailed\b).{8,}", re.I)
"""A query with an exception name or the word error/failed and some message: try the matcher."""


@dataclass(frozen=True)
class Item:
    """One row of the list: the article, its title and summary cut for highlighting."""

    article: Article
    title: list[tuple[str, bool]]
    summary: list[tuple[str, bool]]
    recognised: bool = False


def looks_like_error(query: str) -> bool:
    return ERROR_LINE.search(query) is not None


def recognised_ids(live: LiveKb, query: str, lang: str) -> list[str]:
    """The articles the matcher confirms for ``query``, best first (blocking: a worker thread)."""
    result = match_text(query, live.index, MatchOptions(lang=lang, top_k=3))
    return [match.article_id for match in result.matches]


def ordered(hits: list[Hit], recognised: list[str], public: dict[str, Article]) -> list[Hit]:
    """The matcher's articles first (in its order), then the text search's."""
    first = [Hit(public[i], float("inf"), ()) for i in recognised if i in public]
    seen = {hit.article.id for hit in first}
    terms = {hit.article.id: hit.terms for hit in hits}
    first = [Hit(h.article, h.score, terms.get(h.article.id, ())) for h in first]
    return first + [hit for hit in hits if hit.article.id not in seen]


def _facets(articles: list[Article]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    libraries = Counter(lib for a in articles for lib in a.libraries)
    tags = Counter(tag for a in articles for tag in a.tags)
    return sorted(libraries.items()), sorted(tags.items())


async def article_list(request: Request, services: ServicesDep) -> Response:
    """``GET /articles``: filter by library and tag; ``q`` in either language, ranked."""
    params = request.query_params
    library = (params.get("library") or "")[:64] or None
    tag = (params.get("tag") or "")[:64] or None
    query = " ".join((params.get("q") or "").split())[:MAX_QUERY]
    lang = page_lang(request)
    live = services.kb.current
    public = [x.article for x in live.kb.articles.values() if x.article.status != "draft"]
    hits = rank_articles(public, library=library, tag=tag, query=query or None)
    recognised: list[str] = []
    if query and looks_like_error(query) and not (library or tag):
        recognised = await run_in_threadpool(recognised_ids, live, query, lang)
        hits = ordered(hits, recognised, {a.id: a for a in public})
    items = [
        Item(
            hit.article,
            marked(typeset(hit.article.title.get(lang)), hit.terms),
            marked(typeset(hit.article.summary.get(lang)), hit.terms),
            hit.article.id in recognised,
        )
        for hit in hits
    ]
    states = await run_in_threadpool(
        article_lifecycles, services.engine, live, stale_after_days=services.stale_after_days
    )
    libraries, tags = _facets(public)
    context = {
        "items": items,
        "states": states,
        "libraries": libraries,
        "tags": tags,
        "library": library or "",
        "tag": tag or "",
        "q": query,
    }
    return render(request, "articles.html", context)

"""``GET /api/v1/articles`` (browse, search) and ``GET /api/v1/articles/{id}`` (one article).

Articles come from the KB in memory; the database adds the latest
verification, the hit and feedback counts and the lifecycle state (issue 9).
A database outage costs those fields (null), not the article.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.concurrency import run_in_threadpool

from app.api.deps import BaseUrlDep, ServicesDep
from app.api.reply import article_url
from app.api.schemas import (
    ArticleBrief,
    ArticleList,
    ArticleOut,
    ArticleStatsOut,
    Lang,
    LifecycleOut,
    VerificationOut,
    errors,
)
from app.articles.lifecycle import Lifecycle
from app.articles.lifecycle import State as LifecycleState
from app.articles.model import Article, Localized
from app.articles.search import search_articles
from app.http.errors import HttpError
from app.http.state import Services
from app.service.article_pages import article_page
from app.service.article_states import article_lifecycles

router = APIRouter(tags=["articles"])
LangQuery = Annotated[Lang | None, Query(description="Only this language; both when absent.")]


def _texts(text: Localized, lang: str | None) -> dict[str, str]:
    return {lang: text.get(lang)} if lang else {"en": text.en, "zh": text.zh}


def _brief(article: Article, lang: str | None, base_url: str, state: Lifecycle) -> ArticleBrief:
    return ArticleBrief(
        id=article.id,
        title=_texts(article.title, lang),
        summary=_texts(article.summary, lang),
        libraries=list(article.libraries),
        tags=list(article.tags),
        layer=article.layer,
        status=article.status,
        lifecycle=LifecycleOut(**vars(state)),
        url=article_url(base_url, article.id),
    )


async def _lifecycles(services: Services) -> dict[str, Lifecycle]:
    return await run_in_threadpool(
        article_lifecycles,
        services.engine,
        services.kb.current,
        stale_after_days=services.stale_after_days,
    )


@router.get("/api/v1/articles", response_model=ArticleList, responses=errors(422))
async def list_articles(
    services: ServicesDep,
    base_url: BaseUrlDep,
    library: Annotated[str | None, Query(max_length=64)] = None,
    tag: Annotated[str | None, Query(max_length=64)] = None,
    q: Annotated[str | None, Query(max_length=200, description="Text in either language.")] = None,
    state: Annotated[LifecycleState | None, Query(description="Only this lifecycle state.")] = None,
    lang: LangQuery = None,
) -> ArticleList:
    """Filter by library, tag and lifecycle state; `q` searches the texts of both languages."""
    kb = services.kb.current.kb
    found = search_articles(
        (loaded.article for loaded in kb.articles.values()), library=library, tag=tag, query=q
    )
    states = await _lifecycles(services)
    briefs = [
        _brief(a, lang, base_url, states[a.id])
        for a in found
        if state is None or states[a.id].state == state
    ]
    return ArticleList(articles=briefs, count=len(briefs))


@router.get("/api/v1/articles/{article_id}", response_model=ArticleOut, responses=errors(404, 422))
async def get_article(
    services: ServicesDep,
    base_url: BaseUrlDep,
    article_id: Annotated[str, Path(max_length=128)],
    lang: LangQuery = None,
) -> ArticleOut:
    """One article in both languages (or `lang`), its last verification and its statistics."""
    page = await run_in_threadpool(
        article_page,
        services.engine,
        services.kb.current,
        article_id,
        stale_after_days=services.stale_after_days,
    )
    if page is None:
        raise HttpError(404, "no article with this id")
    article = page.article
    verifications = [VerificationOut.model_validate(r, from_attributes=True) for r in page.runs]
    brief = _brief(article, lang, base_url, page.lifecycle)
    return ArticleOut(
        **brief.model_dump(),
        cause=_texts(article.cause, lang),
        fix=_texts(article.fix, lang),
        affects=dict(article.affects),
        references=list(article.references),
        kb_revision=page.revision,
        verification=verifications[0] if verifications else None,
        verifications=verifications,
        stats=None if page.stats is None else ArticleStatsOut(**vars(page.stats)),
    )

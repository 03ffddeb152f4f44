"""One article as both its pages show it: the JSON ``/api/v1/articles/{id}`` and ``/articles/{id}``.

The read model the API and the web page shared by copy before (issue 22):
the article from the KB in use, its lifecycle state, and what the store adds
(the newest verifier run per environment, hit and feedback counts). A
database that cannot answer costs the store's part (``stats`` None, no
runs), never the article. Each layer draws it in its own form.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.articles.lifecycle import Lifecycle
from app.articles.model import Article, is_valid_article_id
from app.errors import StoreError
from app.service.article_states import article_lifecycles
from app.service.kb import LiveKb
from app.store.engine import reader
from app.store.stats import ArticleStats, article_stats
from app.store.tables import VerificationRun
from app.store.verifications import latest_per_environment

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ArticlePage:
    """An article, its state, and the store's record of it (empty when the store is down)."""

    article: Article
    lifecycle: Lifecycle
    revision: str
    runs: tuple[VerificationRun, ...] = ()
    stats: ArticleStats | None = None


def article_page(
    engine: Engine, live: LiveKb, article_id: str, *, stale_after_days: int
) -> ArticlePage | None:
    """The page of ``article_id`` in the KB ``live``, or None when it has no such article.

    A draft has no page (issue 21): it is unfinished and may hold unreviewed samples.

    Blocking (database reads): the HTTP layers run it in a worker thread.
    """
    loaded = live.kb.articles.get(article_id) if is_valid_article_id(article_id) else None
    if loaded is None or loaded.article.status == "draft":
        return None
    runs, stats = _recorded(engine, article_id)
    states = article_lifecycles(engine, live, stale_after_days=stale_after_days)
    return ArticlePage(loaded.article, states[article_id], live.revision, runs, stats)


def _recorded(
    engine: Engine, article_id: str
) -> tuple[tuple[VerificationRun, ...], ArticleStats | None]:
    try:
        with Session(reader(engine)) as session:
            runs = latest_per_environment(session, article_id=article_id)
            stats = article_stats(session, article_id=article_id)
    except StoreError as exc:
        log.warning("article statistics unavailable: %s", type(exc.__cause__ or exc).__name__)
        return (), None
    return tuple(runs), stats

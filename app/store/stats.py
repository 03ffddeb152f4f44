"""Read-only queries for article pages and feedback: hits, verdicts, one match event.

Kept apart from ``queries.py`` (the writes and their idempotency rules);
the same conventions hold: keyword-only, one transaction each, detached rows,
database failures as ``StoreError``. Callers should pass a session bound to
``engine.reader(engine)`` so SQLite begins them DEFERRED.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.store.queries import _done, _guarded
from app.store.tables import Feedback, MatchEvent


@dataclass(frozen=True)
class ArticleStats:
    """How often an article was the top answer, and what users said about those answers."""

    hits: int
    fixed: int
    wrong: int
    named_right: int  # feedback on other answers that named this article as the right one


@_guarded
def article_stats(session: Session, *, article_id: str) -> ArticleStats:
    """Hit count and feedback counts of one article."""
    hits = session.exec(
        select(sa.func.count()).where(col(MatchEvent.top_article_id) == article_id)
    ).one()
    verdicts = session.exec(
        select(Feedback.verdict, sa.func.count())
        .join(MatchEvent, col(MatchEvent.id) == col(Feedback.match_event_id))
        .where(col(MatchEvent.top_article_id) == article_id)
        .group_by(col(Feedback.verdict))
    ).all()
    named = session.exec(
        select(sa.func.count()).where(col(Feedback.right_article_id) == article_id)
    ).one()
    _done(session)
    counts = dict(verdicts)
    return ArticleStats(int(hits), counts.get("fixed", 0), counts.get("wrong", 0), int(named))


@_guarded
def get_match_event(session: Session, *, match_event_id: int) -> MatchEvent | None:
    """One stored match event (redacted), or None."""
    row = session.get(MatchEvent, match_event_id)
    _done(session, [row] if row is not None else [])
    return row

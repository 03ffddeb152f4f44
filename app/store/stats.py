"""Read-only queries for article pages and feedback: hits, verdicts, one match event.

Kept apart from the writes (``match_events.py``, ``verifications.py``);
the same conventions hold: keyword-only, one transaction each, detached rows,
database failures as ``StoreError``. Callers should pass a session bound to
``engine.reader(engine)`` so SQLite begins them DEFERRED.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.articles.lifecycle import STALE_OUTCOMES, Evidence, Flag
from app.store.environments import environment_label
from app.store.tables import Feedback, MatchEvent, VerificationRun
from app.store.transaction import done, guarded


@dataclass(frozen=True)
class ArticleStats:
    """How often an article was the top answer, and what users said about those answers."""

    hits: int
    fixed: int
    wrong: int
    named_right: int  # feedback on other answers that named this article as the right one


@guarded
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
    done(session)
    counts = dict(verdicts)
    return ArticleStats(int(hits), counts.get("fixed", 0), counts.get("wrong", 0), int(named))


@guarded
def lifecycle_evidence(session: Session) -> tuple[dict[str, Evidence], datetime | None]:
    """Per article: its latest verifier run, the newest flagging run among the latest run
    of each environment, and its last hit; and when the store began counting.

    Three queries for the whole KB, run by every page and metrics scrape; the
    match events are read through indexes only (``last_hits``), so a page costs
    the same at 35,000 events or a million.
    """
    latest = (
        sa.select(
            col(VerificationRun.id),
            col(VerificationRun.article_id),
            col(VerificationRun.outcome),
            col(VerificationRun.started_at),
            col(VerificationRun.environment),
            sa.func.row_number()
            .over(
                partition_by=(
                    col(VerificationRun.article_id),
                    col(VerificationRun.environment_key),
                ),
                order_by=(col(VerificationRun.started_at).desc(), col(VerificationRun.id).desc()),
            )
            .label("position"),
        )
    ).subquery()
    runs = session.exec(
        select(
            latest.c.article_id,
            latest.c.outcome,
            latest.c.started_at,
            latest.c.environment,
        )
        .where(latest.c.position == 1)
        .order_by(latest.c.started_at.desc(), latest.c.id.desc())
    ).all()
    hits = session.execute(last_hits()).all()
    since = session.exec(select(sa.func.min(col(MatchEvent.created_at)))).one()
    done(session)
    evidence: dict[str, Evidence] = {}
    for article_id, outcome, started_at, environment in runs:  # newest first
        known = evidence.get(article_id)
        if known is None:
            known = Evidence(latest_outcome=outcome, latest_run_at=_utc(started_at))
        if known.flag is None and outcome in STALE_OUTCOMES:
            at = _utc(started_at) or started_at
            known = replace(known, flag=Flag(outcome, at, environment_label(environment)))
        evidence[article_id] = known
    for article_id, last_hit in hits:
        known = evidence.get(str(article_id), Evidence())
        evidence[str(article_id)] = replace(known, last_hit_at=_utc(last_hit))
    return evidence, _utc(since)


def last_hits() -> sa.Select[tuple[str, datetime]]:
    """Each article's newest match event, in index lookups: O(articles × log events).

    A GROUP BY reads every event: 0.8 s a page at a million events on SQLite,
    and the 30-minute soak's pages slowed as its 35,000 events piled up. This
    walks the distinct ``top_article_id`` values one index probe at a time (a
    recursive CTE: the next id is the smallest one above the last), then asks
    the (top_article_id, created_at) index for each one's newest time.
    """
    events = sa.inspect(MatchEvent).local_table
    later = events.alias("later")
    walk = sa.select(sa.func.min(events.c.top_article_id).label("article_id")).cte(
        "hit_articles", recursive=True
    )
    following = (
        sa.select(sa.func.min(later.c.top_article_id))
        .where(later.c.top_article_id > walk.c.article_id)
        .scalar_subquery()
    )
    walk = walk.union_all(sa.select(following).where(walk.c.article_id.is_not(None)))
    newest = (
        sa.select(sa.func.max(events.c.created_at))
        .where(events.c.top_article_id == walk.c.article_id)
        .scalar_subquery()
    )
    return sa.select(walk.c.article_id, newest).where(walk.c.article_id.is_not(None))


def _utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)

"""Reads for the authoring loop (issue 9): a cluster's samples, events to replay, feedback.

Everything returned is already redacted (it was stored redacted). Same
conventions as the rest of the store (``transaction.py``): keyword-only, one
transaction each, detached rows, database failures as ``StoreError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.errors import InputError
from app.store.tables import Feedback, MatchEvent, StoredText, UnmatchedCluster
from app.store.transaction import aware, done, guarded

MIN_PREFIX = 8


@guarded
def find_cluster(session: Session, *, fingerprint: str) -> UnmatchedCluster | None:
    """The cluster whose fingerprint starts with ``fingerprint`` (at least 8 hex digits)."""
    prefix = fingerprint.strip().lower()
    if len(prefix) < MIN_PREFIX or any(c not in "0123456789abcdef" for c in prefix):
        raise InputError(f"a cluster fingerprint is {MIN_PREFIX}+ hex digits, got {fingerprint!r}")
    rows = list(
        session.exec(
            select(UnmatchedCluster)
            .where(col(UnmatchedCluster.fingerprint).startswith(prefix))
            .limit(2)
        )
    )
    done(session, rows)
    if len(rows) > 1:
        raise InputError(f"fingerprint prefix {fingerprint!r} names several clusters")
    return rows[0] if rows else None


@guarded
def cluster_excerpts(session: Session, *, fingerprint: str, limit: int = 3) -> list[str]:
    """Distinct redacted excerpts of the cluster's unmatched sightings, newest first."""
    rows = session.exec(
        select(StoredText.body)
        .join(MatchEvent, col(MatchEvent.excerpt_id) == col(StoredText.id))
        .where(col(MatchEvent.fingerprint) == fingerprint)
        .where(col(MatchEvent.top_article_id).is_(None))
        .order_by(col(MatchEvent.created_at).desc(), col(MatchEvent.id).desc())
        .limit(limit * 10)
    ).all()
    done(session)
    return list(dict.fromkeys(row for row in rows if row.strip()))[:limit]


@dataclass(frozen=True)
class StoredEvent:
    """One stored match event as a dry run replays it."""

    id: int
    created_at: datetime
    excerpt: str
    top_article_id: str | None
    view_key: str | None  # set once the web page was opened: the permalink /r/<id>/<key>


@guarded
def events_since(session: Session, *, since: datetime, limit: int) -> list[StoredEvent]:
    """The newest ``limit`` match events stored after ``since`` that have an excerpt."""
    rows = session.execute(
        sa.select(
            col(MatchEvent.id),
            col(MatchEvent.created_at),
            col(StoredText.body),
            col(MatchEvent.top_article_id),
            col(MatchEvent.view_key),
        )
        .join(StoredText, col(StoredText.id) == col(MatchEvent.excerpt_id))
        .where(col(MatchEvent.created_at) >= aware(since, "since"))
        .order_by(col(MatchEvent.created_at).desc(), col(MatchEvent.id).desc())
        .limit(limit)
    ).all()
    done(session)
    return [StoredEvent(int(i or 0), at, text, top, key) for i, at, text, top, key in rows]


@dataclass(frozen=True)
class Verdict:
    """One feedback row with the answer it judged."""

    feedback_id: int
    created_at: datetime
    verdict: str
    right_article_id: str | None
    match_event_id: int
    answered_article_id: str | None
    excerpt: str


@guarded
def feedback_verdicts(session: Session, *, since: datetime) -> list[Verdict]:
    """Feedback given after ``since``, oldest first, joined with the event it is about."""
    query = (
        sa.select(
            col(Feedback.id),
            col(Feedback.created_at),
            col(Feedback.verdict),
            col(Feedback.right_article_id),
            col(MatchEvent.id),
            col(MatchEvent.top_article_id),
            col(StoredText.body),
        )
        .join(MatchEvent, col(MatchEvent.id) == col(Feedback.match_event_id))
        .outerjoin(StoredText, col(StoredText.id) == col(MatchEvent.excerpt_id))
        .where(col(Feedback.created_at) >= aware(since, "since"))
        .order_by(col(Feedback.created_at), col(Feedback.id))
    )
    rows = session.execute(query).all()
    done(session)
    return [
        Verdict(int(f or 0), at, v, right, int(e or 0), top, x or "")
        for f, at, v, right, e, top, x in rows
    ]

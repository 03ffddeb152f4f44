"""What the service learns from each answer: match events, their feedback, unmatched clusters.

Callers: the recorder's writer thread (``app.service.recorder``), the paste
page's stored view and feedback buttons, ``POST /api/v1/feedback``, the
unmatched list. The conventions (one transaction each, idempotent inserts,
``StoreError``) are ``app.store.transaction``'s.

An event's excerpt and view live in ``stored_text`` rows named by their
SHA-256, so identical pastes store their text once and count it (issue 24,
item 6; ``stored_text.uses``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.errors import InputError
from app.store.tables import Feedback, MatchEvent, StoredText, UnmatchedCluster, utcnow
from app.store.transaction import aware, dialect_insert, done, guarded


@guarded
def record_match_event(session: Session, /, **values: Any) -> int:
    """Store one answered match and return its id; a repeated idempotency key returns the first.

    ``curl --retry`` resends the same body with the same ``Idempotency-Key``;
    the event is counted once (target F5). The keywords are ``_insert_match_event``'s.
    """
    event_id = _insert_match_event(session, **values)
    done(session)
    return event_id


@guarded
def record_match_events(session: Session, events: Sequence[dict[str, Any]]) -> list[int]:
    """Store several answered matches in one transaction; their ids, in order.

    The service's writer thread commits what queued up while it was busy as
    one group: under load a commit per request costs more than the inserts.
    Each item holds ``record_match_event``'s keywords and, for an error no
    article matched, ``unmatched``: ``upsert_unmatched``'s keywords.
    """
    ids = []
    for item in events:
        values = dict(item)
        unmatched = values.pop("unmatched", None)
        ids.append(_insert_match_event(session, **values))
        if unmatched is not None:
            _count_unmatched(session, **unmatched)
    done(session)
    return ids


def _insert_match_event(
    session: Session,
    *,
    fingerprint: str,
    excerpt: str,
    top_article_id: str | None,
    score: float | None,
    client_kind: str,
    lang: str,
    input_bytes: int,
    event_count: int,
    duration_ms: float,
    kb_revision: str,
    idempotency_key: str | None = None,
    idempotency_body: str | None = None,
    view: dict[str, Any] | None = None,
    view_key: str | None = None,
    created_at: datetime | None = None,
) -> int:
    if idempotency_key is not None:  # a retry: its event and texts are stored already
        query = select(MatchEvent.id).where(MatchEvent.idempotency_key == idempotency_key)
        known = session.exec(query).first()
        if known is not None:
            return known
    values = {
        "view_id": None if view is None else _text_id(session, view_text(view)),
        "view_key": view_key,
        "created_at": aware(created_at or utcnow(), "created_at"),
        "fingerprint": fingerprint,
        "excerpt_id": _text_id(session, excerpt) if excerpt else None,
        "top_article_id": top_article_id,
        "score": score,
        "client_kind": client_kind,
        "lang": lang,
        "input_bytes": input_bytes,
        "event_count": event_count,
        "duration_ms": duration_ms,
        "kb_revision": kb_revision,
        "idempotency_key": idempotency_key,
        "idempotency_body": idempotency_body,
    }
    stmt = dialect_insert(session, MatchEvent).values(values)
    stmt = stmt.on_conflict_do_nothing(index_elements=["idempotency_key"])
    event_id = session.exec(stmt.returning(col(MatchEvent.id))).scalar_one_or_none()
    if event_id is None:
        query = select(MatchEvent.id).where(MatchEvent.idempotency_key == idempotency_key)
        event_id = session.exec(query).one()
    assert event_id is not None
    return event_id


def view_text(view: dict[str, Any]) -> str:
    """A view as the text stored: canonical JSON, so equal views have equal digests."""
    return json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _text_id(session: Session, text: str) -> int:
    """The id of the ``stored_text`` row holding ``text``: inserted, or counted once more.

    One statement (INSERT ... ON CONFLICT DO UPDATE on the digest), so two
    writers storing the same text leave one row counted twice.
    """
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    stmt = dialect_insert(session, StoredText).values(
        digest=digest, body=text, uses=1, created_at=utcnow()
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=["digest"], set_={"uses": col(StoredText.uses) + 1}
    )
    text_id: int = session.exec(stmt.returning(col(StoredText.id))).scalar_one()
    return text_id


@guarded
def stored_view(session: Session, *, match_event_id: int) -> tuple[str, dict[str, Any]] | None:
    """An event's permalink key and its view; None when it has none (or no such event)."""
    query = (
        sa.select(col(MatchEvent.view_key), col(StoredText.body))
        .join(StoredText, col(StoredText.id) == col(MatchEvent.view_id))
        .where(col(MatchEvent.id) == match_event_id)
    )
    row = session.execute(query).first()
    done(session)
    if row is None or row[0] is None:
        return None
    view: dict[str, Any] = json.loads(row[1])
    return str(row[0]), view


@guarded
def idempotent_body(session: Session, *, idempotency_key: str) -> str | None:
    """The body digest stored with an idempotency key; None when the key is new (or
    came without one, from before migration 0007)."""
    query = select(MatchEvent.idempotency_body).where(MatchEvent.idempotency_key == idempotency_key)
    found = session.exec(query).first()
    done(session)
    return found


@guarded
def attach_view(
    session: Session, *, match_event_id: int, view: dict[str, Any], key: str
) -> str | None:
    """Give a match event its web view and permalink key; returns the key it ends up with.

    The first view wins (one UPDATE ... WHERE view_key IS NULL): a cached answer
    pasted twice keeps one permalink. None when there is no such event.
    """
    current = select(MatchEvent.id, MatchEvent.view_key).where(MatchEvent.id == match_event_id)
    event = session.exec(current).first()
    if event is not None and event[1] is None:
        stmt = (
            sa.update(MatchEvent)
            .where(col(MatchEvent.id) == match_event_id, col(MatchEvent.view_key).is_(None))
            .values(view_id=_text_id(session, view_text(view)), view_key=key)
        )
        session.exec(stmt)
        event = session.exec(current).first()
    done(session)
    return None if event is None else event[1]


@dataclass(frozen=True)
class FeedbackStored:
    id: int
    match_event_id: int
    replaced: bool
    """True when this client's earlier verdict on the event was replaced."""


def client_key(match_event_id: int, client: str) -> str:
    """What identifies a client's verdict: the event and the address hashed together, so
    one client holds one verdict per event and no stored value links its events."""
    return hashlib.sha256(f"errkb-feedback\0{match_event_id}\0{client}".encode()).hexdigest()


@guarded
def event_id_by_key(session: Session, *, result_key: str) -> int | None:
    """The match event whose permalink carries ``result_key``; None for an unknown key."""
    query = select(MatchEvent.id, MatchEvent.view_key).where(MatchEvent.view_key == result_key)
    row = session.exec(query).first()
    done(session)
    if row is None or row[1] is None:
        return None
    # the index found it; compare again in constant time so timing tells nothing more
    return row[0] if hmac.compare_digest(row[1].encode(), result_key.encode()) else None


@guarded
def record_feedback(
    session: Session,
    *,
    match_event_id: int,
    verdict: str,
    right_article_id: str | None = None,
    comment: str | None = None,
    client: str | None = None,
) -> int:
    """Store a user's verdict on a match event and return its id.

    With ``client``, a second verdict of that client on the event replaces the
    first (``record_verdict``). An unknown event is the caller's mistake
    (InputError), not a database failure.
    """
    return record_verdict(
        session,
        match_event_id=match_event_id,
        verdict=verdict,
        right_article_id=right_article_id,
        comment=comment,
        client=client,
    ).id


@guarded
def record_verdict(
    session: Session,
    *,
    match_event_id: int,
    verdict: str,
    right_article_id: str | None = None,
    comment: str | None = None,
    client: str | None = None,
) -> FeedbackStored:
    """``record_feedback`` saying whether an earlier verdict of ``client`` was replaced.

    One statement (INSERT ... ON CONFLICT DO UPDATE on the unique index of event
    and client key), so two concurrent verdicts of one client leave one row.
    """
    if session.exec(select(MatchEvent.id).where(MatchEvent.id == match_event_id)).first() is None:
        session.rollback()
        raise InputError(f"no match event {match_event_id}")
    key = None if client is None else client_key(match_event_id, client)
    values = {"verdict": verdict, "right_article_id": right_article_id, "comment": comment}
    earlier = None
    if key is not None:
        query = select(Feedback.id).where(
            Feedback.match_event_id == match_event_id, Feedback.client_key == key
        )
        earlier = session.exec(query).first()
    stmt = dialect_insert(session, Feedback).values(
        match_event_id=match_event_id, client_key=key, created_at=utcnow(), **values
    )
    if key is not None:
        stmt = stmt.on_conflict_do_update(
            index_elements=["match_event_id", "client_key"],
            set_={**values, "created_at": stmt.excluded.created_at},
        )
    feedback_id: int = session.exec(stmt.returning(col(Feedback.id))).scalar_one()
    done(session)
    return FeedbackStored(feedback_id, match_event_id, replaced=earlier is not None)


@guarded
def upsert_unmatched(
    session: Session, *, fingerprint: str, exception: str, sample: str, seen_at: datetime
) -> int:
    """Count one more sighting of an unmatched error and return the cluster's count.

    One statement (INSERT ... ON CONFLICT DO UPDATE), so concurrent requests
    never lose an increment; the first sample is kept, last_seen only moves on.
    """
    count = _count_unmatched(
        session, fingerprint=fingerprint, exception=exception, sample=sample, seen_at=seen_at
    )
    done(session)
    return count


def _count_unmatched(
    session: Session, *, fingerprint: str, exception: str, sample: str, seen_at: datetime
) -> int:
    aware(seen_at, "seen_at")
    stmt = dialect_insert(session, UnmatchedCluster).values(
        fingerprint=fingerprint,
        exception=exception,
        sample=sample,
        count=1,
        first_seen=seen_at,
        last_seen=seen_at,
    )
    last_seen = col(UnmatchedCluster.last_seen)
    stmt = stmt.on_conflict_do_update(
        index_elements=["fingerprint"],
        set_={
            "count": col(UnmatchedCluster.count) + 1,
            "last_seen": sa.case(
                (stmt.excluded.last_seen > last_seen, stmt.excluded.last_seen), else_=last_seen
            ),
        },
    )
    count: int = session.exec(stmt.returning(col(UnmatchedCluster.count))).scalar_one()
    return count


@dataclass(frozen=True)
class Purged:
    events: int
    clusters: int
    texts: int = 0


@guarded
def purge_before(session: Session, *, before: datetime) -> Purged:
    """Delete match events (their feedback goes with them) and clusters last seen before
    ``before``, then the stored texts no event holds any more: the retention job (target
    F11). One transaction."""
    cutoff = aware(before, "before")
    events = session.execute(sa.delete(MatchEvent).where(col(MatchEvent.created_at) < cutoff))
    clusters = session.execute(
        sa.delete(UnmatchedCluster).where(col(UnmatchedCluster.last_seen) < cutoff)
    )
    held = sa.select(col(MatchEvent.excerpt_id)).where(col(MatchEvent.excerpt_id).is_not(None))
    viewed = sa.select(col(MatchEvent.view_id)).where(col(MatchEvent.view_id).is_not(None))
    texts = session.execute(
        sa.delete(StoredText).where(
            col(StoredText.id).not_in(held), col(StoredText.id).not_in(viewed)
        )
    )
    counts = [int(getattr(r, "rowcount", 0) or 0) for r in (events, clusters, texts)]
    done(session)
    return Purged(*counts)


@guarded
def list_unmatched(session: Session, *, limit: int = 50, offset: int = 0) -> list[UnmatchedCluster]:
    """The unmatched clusters, most frequent first (then most recent): the KB's to-do list."""
    query = (
        select(UnmatchedCluster)
        .order_by(
            col(UnmatchedCluster.count).desc(),
            col(UnmatchedCluster.last_seen).desc(),
            col(UnmatchedCluster.id),
        )
        .limit(limit)
        .offset(offset)
    )
    rows = list(session.exec(query))
    done(session, rows)
    return rows

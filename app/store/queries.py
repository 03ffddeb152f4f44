"""The SQL errkb runs: small keyword-only functions, one transaction each.

Every function takes a Session, commits (or, for reads, ends) its own
transaction before it returns, and hands back detached rows. So no call leaves
a SQLite write lock behind while the caller renders a response, and callers
never juggle commits. Read-only callers may pass a session bound to
``engine.reader(engine)`` so that SQLite begins them DEFERRED.

Retries must be harmless (reliability targets F4, F5): the inserts that a
client may repeat use ``INSERT ... ON CONFLICT`` on a unique key, through the
SQLite or PostgreSQL ``insert`` construct, so two racing requests cannot both
insert. Database failures leave as ``StoreError``; a caller's mistake (an
unknown match event, a taken token name) as ``InputError``; a naive datetime,
a programming error, as ``ValueError``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from app.errors import InputError, StoreError
from app.store.environments import environment_key
from app.store.tables import (
    ApiToken,
    Feedback,
    MatchEvent,
    StoreModel,
    UnmatchedCluster,
    VerificationRun,
    utcnow,
)

P = ParamSpec("P")
R = TypeVar("R")
TOKEN_PREFIX = "errkb_"  # noqa: S105 (a public prefix, not a secret)
_SCOPE = re.compile(r"[a-z][a-z0-9-]{0,31}")


def _guarded(fn: Callable[Concatenate[Session, P], R]) -> Callable[Concatenate[Session, P], R]:
    """Roll back and wrap database failures as StoreError, so the session stays usable."""

    @functools.wraps(fn)
    def wrapper(session: Session, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(session, *args, **kwargs)
        except SQLAlchemyError as exc:
            with contextlib.suppress(SQLAlchemyError):  # a dead connection cannot roll back
                session.rollback()
            # The driver's message, not str(exc): that one carries the statement's parameters.
            reason = getattr(exc, "orig", None) or type(exc).__name__
            raise StoreError(f"{fn.__name__} failed: {reason}") from exc

    return wrapper


def _insert(session: Session, model: type[StoreModel]) -> sqlite.Insert | postgresql.Insert:
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        return postgresql.insert(model)
    if dialect == "sqlite":
        return sqlite.insert(model)
    raise StoreError(f"unsupported database: {dialect}")


def _done(session: Session, rows: Iterable[StoreModel] = ()) -> None:
    """Detach ``rows`` (so they stay readable) and end the transaction."""
    for row in rows:
        session.expunge(row)
    session.commit()


def _aware(value: datetime, name: str) -> datetime:
    if value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware")
    return value


@_guarded
def record_match_event(session: Session, /, **values: Any) -> int:
    """Store one answered match and return its id; a repeated idempotency key returns the first.

    ``curl --retry`` resends the same body with the same ``Idempotency-Key``;
    the event is counted once (target F5). The keywords are ``_insert_match_event``'s.
    """
    event_id = _insert_match_event(session, **values)
    _done(session)
    return event_id


@_guarded
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
    _done(session)
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
    created_at: datetime | None = None,
) -> int:
    values = {
        "created_at": _aware(created_at or utcnow(), "created_at"),
        "fingerprint": fingerprint,
        "excerpt": excerpt,
        "top_article_id": top_article_id,
        "score": score,
        "client_kind": client_kind,
        "lang": lang,
        "input_bytes": input_bytes,
        "event_count": event_count,
        "duration_ms": duration_ms,
        "kb_revision": kb_revision,
        "idempotency_key": idempotency_key,
    }
    stmt = _insert(session, MatchEvent).values(values)
    stmt = stmt.on_conflict_do_nothing(index_elements=["idempotency_key"])
    event_id = session.exec(stmt.returning(col(MatchEvent.id))).scalar_one_or_none()
    if event_id is None:
        query = select(MatchEvent.id).where(MatchEvent.idempotency_key == idempotency_key)
        event_id = session.exec(query).one()
    assert event_id is not None
    return event_id


@_guarded
def attach_view(
    session: Session, *, match_event_id: int, view: dict[str, Any], key: str
) -> str | None:
    """Give a match event its web view and permalink key; returns the key it ends up with.

    The first view wins (one UPDATE ... WHERE view_key IS NULL): a cached answer
    pasted twice keeps one permalink. None when there is no such event.
    """
    stmt = (
        sa.update(MatchEvent)
        .where(col(MatchEvent.id) == match_event_id, col(MatchEvent.view_key).is_(None))
        .values(view=view, view_key=key)
    )
    session.exec(stmt)
    stored = session.exec(select(MatchEvent.view_key).where(MatchEvent.id == match_event_id))
    found = stored.first()
    _done(session)
    return found


@_guarded
def record_feedback(
    session: Session,
    *,
    match_event_id: int,
    verdict: str,
    right_article_id: str | None = None,
    comment: str | None = None,
) -> int:
    """Store a user's verdict on a match event and return its id.

    An unknown event is the caller's mistake (InputError), not a database failure.
    """
    if session.exec(select(MatchEvent.id).where(MatchEvent.id == match_event_id)).first() is None:
        session.rollback()
        raise InputError(f"no match event {match_event_id}")
    row = Feedback(
        match_event_id=match_event_id,
        verdict=verdict,
        right_article_id=right_article_id,
        comment=comment,
    )
    session.add(row)
    session.flush()
    feedback_id = row.id
    _done(session, [row])
    assert feedback_id is not None
    return feedback_id


@_guarded
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
    _done(session)
    return count


def _count_unmatched(
    session: Session, *, fingerprint: str, exception: str, sample: str, seen_at: datetime
) -> int:
    _aware(seen_at, "seen_at")
    stmt = _insert(session, UnmatchedCluster).values(
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


@_guarded
def purge_before(session: Session, *, before: datetime) -> Purged:
    """Delete match events (their feedback goes with them) and clusters last seen before
    ``before``: the retention job (target F11). One transaction."""
    cutoff = _aware(before, "before")
    events = session.execute(sa.delete(MatchEvent).where(col(MatchEvent.created_at) < cutoff))
    clusters = session.execute(
        sa.delete(UnmatchedCluster).where(col(UnmatchedCluster.last_seen) < cutoff)
    )
    counts = (getattr(events, "rowcount", 0), getattr(clusters, "rowcount", 0))
    _done(session)
    return Purged(int(counts[0] or 0), int(counts[1] or 0))


@_guarded
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
    _done(session, rows)
    return rows


@dataclass(frozen=True)
class Recorded:
    """What ``record_verification`` did with a run.

    ``created``: stored now. ``duplicate``: the same run_id with the same
    payload was stored before (a retry: answer as the first time).
    ``conflict``: the run_id is taken by a different payload (the API answers
    422). ``run`` is always the stored row.
    """

    status: Literal["created", "duplicate", "conflict"]
    run: VerificationRun

    @property
    def is_new(self) -> bool:
        """True when this call stored the run."""
        return self.status == "created"


@_guarded
def record_verification(
    session: Session,
    *,
    run_id: str,
    article_id: str,
    content_hash: str,
    outcome: str,
    environment: dict[str, Any],
    started_at: datetime,
    duration_s: float,
    detail: str | None = None,
) -> Recorded:
    """Store a verifier run once per ``run_id`` (INSERT ... ON CONFLICT DO NOTHING, target F4)."""
    payload = {
        "article_id": article_id,
        "content_hash": content_hash,
        "outcome": outcome,
        # Round-trip through JSON so a tuple compares equal to the list stored.
        "environment": json.loads(json.dumps(environment)),
        "environment_key": environment_key(environment),
        "started_at": _aware(started_at, "started_at"),
        "duration_s": duration_s,
        "detail": detail,
    }
    stmt = _insert(session, VerificationRun).values(run_id=run_id, created_at=utcnow(), **payload)
    stmt = stmt.on_conflict_do_nothing(index_elements=["run_id"])
    inserted = session.exec(stmt.returning(col(VerificationRun.id))).scalar_one_or_none()
    run = session.exec(select(VerificationRun).where(VerificationRun.run_id == run_id)).one()
    _done(session, [run])
    if inserted is not None:
        return Recorded("created", run)
    same = all(getattr(run, key) == value for key, value in payload.items())
    return Recorded("duplicate" if same else "conflict", run)


@_guarded
def latest_verifications(
    session: Session, *, article_id: str, limit: int = 20
) -> list[VerificationRun]:
    """An article's verifier runs, newest first: the article page's verification matrix."""
    query = (
        select(VerificationRun)
        .where(VerificationRun.article_id == article_id)
        .order_by(col(VerificationRun.started_at).desc(), col(VerificationRun.id).desc())
        .limit(limit)
    )
    rows = list(session.exec(query))
    _done(session, rows)
    return rows


@_guarded
def latest_per_environment(session: Session, *, article_id: str) -> list[VerificationRun]:
    """The newest run of an article in each environment, newest first (issue 6).

    One query: a window over the article's runs, partitioned by the stored
    ``environment_key`` (``app.store.environments``), keeps the first of each.
    """
    ranked = (
        select(
            col(VerificationRun.id),
            sa.func.row_number()
            .over(
                partition_by=col(VerificationRun.environment_key),
                order_by=(col(VerificationRun.started_at).desc(), col(VerificationRun.id).desc()),
            )
            .label("position"),
        )
        .where(VerificationRun.article_id == article_id)
        .subquery()
    )
    query = (
        select(VerificationRun)
        .join(ranked, ranked.c.id == col(VerificationRun.id))
        .where(ranked.c.position == 1)
        .order_by(col(VerificationRun.started_at).desc(), col(VerificationRun.id).desc())
    )
    rows = list(session.exec(query))
    _done(session, rows)
    return rows


def _token_hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def _scope_words(scopes: str | Sequence[str]) -> list[str]:
    words = scopes.split() if isinstance(scopes, str) else list(scopes)
    bad = [w for w in words if not _SCOPE.fullmatch(w)]
    if not words or bad:
        raise InputError(f"scopes must be lowercase words like 'verify admin', got {scopes!r}")
    return words


@_guarded
def create_token(
    session: Session, *, name: str, scopes: str | Sequence[str]
) -> tuple[str, ApiToken]:
    """Mint a token and return ``(plaintext, row)``; only its sha256 is stored.

    The plaintext ('errkb_<first scope>_...') is shown once; the prefix lets
    secret scanners and log redaction recognise it.
    """
    words = _scope_words(scopes)
    if session.exec(select(ApiToken.id).where(ApiToken.name == name)).first() is not None:
        session.rollback()
        raise InputError(f"a token named {name!r} exists")
    plaintext = f"{TOKEN_PREFIX}{words[0]}_{secrets.token_urlsafe(32)}"
    row = ApiToken(name=name, token_hash=_token_hash(plaintext), scopes=" ".join(words))
    session.add(row)
    session.flush()
    _done(session, [row])
    return plaintext, row


@_guarded
def find_token(session: Session, *, plaintext: str) -> ApiToken | None:
    """The live token whose plaintext this is, or None; records when it was last used."""
    digest = _token_hash(plaintext)
    query = select(ApiToken).where(
        ApiToken.token_hash == digest, col(ApiToken.revoked_at).is_(None)
    )
    row = session.exec(query).first()
    if row is None or not hmac.compare_digest(row.token_hash, digest):
        _done(session)
        return None
    row.last_used_at = utcnow()
    session.flush()
    _done(session, [row])
    return row


@_guarded
def revoke_token(session: Session, *, name: str) -> bool:
    """Revoke the token called ``name``; False when there is no live one."""
    stmt = (
        sa.update(ApiToken)
        .where(col(ApiToken.name) == name, col(ApiToken.revoked_at).is_(None))
        .values(revoked_at=utcnow())
    )
    revoked = session.exec(stmt).rowcount == 1
    _done(session)
    return revoked


@_guarded
def list_tokens(session: Session) -> list[ApiToken]:
    """Every token, revoked ones included, by name (hashes, never plaintexts)."""
    rows = list(session.exec(select(ApiToken).order_by(col(ApiToken.name))))
    _done(session, rows)
    return rows

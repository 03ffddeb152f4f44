"""The tables errkb writes: what the service learns while it runs.

The YAML in ``kb/`` is the source of truth for articles, so no table holds an
article; rows refer to articles by id. Every column type is explicit and
portable (SQLite and PostgreSQL), and ``migrations/versions`` must produce
exactly this metadata: ``tests/store/test_migrations.py`` compares them.

Datetimes are timezone-aware UTC in Python (SQLModel's ``UTCDateTime`` refuses
naive values and stores UTC); enum-like strings carry check constraints so a
bad value fails in the database, not later in a report.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

CLIENT_KINDS = ("api", "curl", "web", "cli", "bot")
VERDICTS = ("fixed", "wrong")
OUTCOMES = ("verified", "stale", "drifted", "fix-broken", "unverifiable", "error")
COMMENT_MAX = 2000
"""Longest feedback comment kept; the API refuses longer ones before we see them."""

# Named constraints let later batch migrations on SQLite find and drop them.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class StoreModel(
    SQLModel, registry=registry(metadata=sa.MetaData(naming_convention=NAMING_CONVENTION))
):
    """Base of errkb's tables: their own metadata, apart from SQLModel's global one."""


def utcnow() -> datetime:
    """The current time, timezone-aware UTC: the default of every ``created_at``."""
    return datetime.now(UTC)


def _one_of(column: str, values: tuple[str, ...]) -> sa.CheckConstraint:
    quoted = ", ".join(f"'{v}'" for v in values)
    return sa.CheckConstraint(f"{column} IN ({quoted})", name=column)


class StoredText(StoreModel, table=True):
    """A redacted text (an excerpt, a result page's view as JSON) stored once, however many
    match events hold it (issue 24, item 6): identical pastes share one body.

    ``digest`` is the SHA-256 of the text; ``uses`` counts the events that stored it
    (retried idempotent requests aside). A body no event holds goes with the retention
    purge (``app.store.match_events.purge_before``).
    """

    __tablename__ = "stored_text"

    id: int | None = Field(default=None, primary_key=True)
    digest: str = Field(sa_type=sa.String(64), unique=True)
    body: str = Field(sa_type=sa.Text)
    uses: int = Field(default=1)
    created_at: datetime = Field(default_factory=utcnow)


class MatchEvent(StoreModel, table=True):
    """One answered match request, redacted: feeds the unmatched list and metrics."""

    __tablename__ = "match_event"
    __table_args__: Any = (
        _one_of("client_kind", CLIENT_KINDS),
        # each article's newest event in one lookup (app.store.stats.last_hits)
        sa.Index("ix_match_event_top_article_id_created_at", "top_article_id", "created_at"),
        # feedback names an event by its permalink key (issue 20): one lookup, never two alike
        sa.Index("ix_match_event_view_key", "view_key", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    fingerprint: str = Field(sa_type=sa.String(64), index=True)
    # the redacted excerpt (app.service.recorder), a stored_text row; NULL: none
    excerpt_id: int | None = Field(default=None, foreign_key="stored_text.id", index=True)
    top_article_id: str | None = Field(default=None, sa_type=sa.String(128))
    score: float | None = Field(default=None)
    client_kind: str = Field(sa_type=sa.String(16))
    lang: str = Field(sa_type=sa.String(8))
    input_bytes: int
    event_count: int
    duration_ms: float
    kb_revision: str = Field(sa_type=sa.String(64))
    idempotency_key: str | None = Field(default=None, sa_type=sa.String(128), unique=True)
    # sha256 of the body the key came with: the key reused with another body is 422 (I8)
    idempotency_body: str | None = Field(default=None, sa_type=sa.String(64))
    # The web result page (issue 5): the redacted answer as the page shows it (JSON in a
    # stored_text row, shared by identical pastes), and the random key its permalink
    # carries, so stored answers cannot be enumerated by id.
    view_id: int | None = Field(default=None, foreign_key="stored_text.id", index=True)
    view_key: str | None = Field(default=None, sa_type=sa.String(32))


class Feedback(StoreModel, table=True):
    """A user's verdict on one match event; deleted with the event (retention)."""

    __tablename__ = "feedback"
    __table_args__: Any = (
        _one_of("verdict", VERDICTS),
        sa.CheckConstraint(f"length(comment) <= {COMMENT_MAX}", name="comment_length"),
        # one verdict per event per client (issue 24): a second one replaces the first.
        # NULL client keys (rows from before, internal writers) stay distinct on both engines.
        sa.Index(
            "uq_feedback_match_event_id_client_key", "match_event_id", "client_key", unique=True
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    match_event_id: int = Field(foreign_key="match_event.id", ondelete="CASCADE", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    verdict: str = Field(sa_type=sa.String(8))
    right_article_id: str | None = Field(default=None, sa_type=sa.String(128))
    comment: str | None = Field(default=None, sa_type=sa.String(COMMENT_MAX))
    # sha256 of the event id and the client's address: one verdict per client, and no
    # address stored that links a client's verdicts across events
    client_key: str | None = Field(default=None, sa_type=sa.String(64))


class UnmatchedCluster(StoreModel, table=True):
    """Error events that matched nothing, grouped by fingerprint: the KB's to-do list."""

    __tablename__ = "unmatched_cluster"

    id: int | None = Field(default=None, primary_key=True)
    fingerprint: str = Field(sa_type=sa.String(64), unique=True)
    exception: str = Field(sa_type=sa.String(256))
    sample: str = Field(sa_type=sa.Text)
    count: int = Field(default=1)
    first_seen: datetime
    last_seen: datetime = Field(index=True)


class VerificationRun(StoreModel, table=True):
    """One verifier run of one article at one content hash; ``run_id`` makes retries safe."""

    __tablename__ = "verification_run"
    __table_args__: Any = (_one_of("outcome", OUTCOMES),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(sa_type=sa.String(64), unique=True)
    article_id: str = Field(sa_type=sa.String(128), index=True)
    content_hash: str = Field(sa_type=sa.String(64))
    outcome: str = Field(sa_type=sa.String(16))
    environment: dict[str, Any] = Field(sa_type=sa.JSON)
    environment_key: str = Field(sa_type=sa.String(64))  # app.store.environments
    started_at: datetime
    duration_s: float
    detail: str | None = Field(default=None, sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utcnow)


class ApiToken(StoreModel, table=True):
    """A bearer token for workers and admins; only its sha256 is stored."""

    __tablename__ = "api_token"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=sa.String(64), unique=True)
    token_hash: str = Field(sa_type=sa.String(64), unique=True)
    scopes: str = Field(sa_type=sa.String(256))
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = Field(default=None)
    last_used_at: datetime | None = Field(default=None)

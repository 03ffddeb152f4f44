"""Initial schema: match events, feedback, unmatched clusters, verification runs, tokens.

Revision ID: 0001
Revises:
Create Date: 2026-11-22

Written for SQLite and PostgreSQL; every constraint is named as
app.store.tables.NAMING_CONVENTION would name it, so that the schema this
revision builds equals the SQLModel metadata (tests/store/test_migrations.py).
Names are wrapped in op.f(): env.py hands Alembic that naming convention, and
op.f() marks a name as final so the convention is not applied twice.
Datetimes are DateTime(timezone=True): SQLModel's UTCDateTime stores UTC in it.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "match_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("excerpt", sa.Text(), nullable=False),
        sa.Column("top_article_id", sa.String(128), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("client_kind", sa.String(16), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("input_bytes", sa.Integer(), nullable=False),
        sa.Column("event_count", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("kb_revision", sa.String(64), nullable=False),
        sa.Column("idempotency_key", sa.String(128), nullable=True),
        sa.CheckConstraint(
            "client_kind IN ('api', 'curl', 'web', 'cli', 'bot')",
            name=op.f("ck_match_event_client_kind"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match_event")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_match_event_idempotency_key")),
    )
    op.create_index(op.f("ix_match_event_created_at"), "match_event", ["created_at"])
    op.create_index(op.f("ix_match_event_fingerprint"), "match_event", ["fingerprint"])
    op.create_index(op.f("ix_match_event_top_article_id"), "match_event", ["top_article_id"])

    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_event_id", sa.Integer(), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("verdict", sa.String(8), nullable=False),
        sa.Column("right_article_id", sa.String(128), nullable=True),
        sa.Column("comment", sa.String(2000), nullable=True),
        sa.CheckConstraint("verdict IN ('fixed', 'wrong')", name=op.f("ck_feedback_verdict")),
        sa.CheckConstraint("length(comment) <= 2000", name=op.f("ck_feedback_comment_length")),
        sa.ForeignKeyConstraint(
            ["match_event_id"],
            ["match_event.id"],
            name=op.f("fk_feedback_match_event_id_match_event"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_feedback")),
    )
    op.create_index(op.f("ix_feedback_match_event_id"), "feedback", ["match_event_id"])

    op.create_table(
        "unmatched_cluster",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("exception", sa.String(256), nullable=False),
        sa.Column("sample", sa.Text(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("first_seen", _TS, nullable=False),
        sa.Column("last_seen", _TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_unmatched_cluster")),
        sa.UniqueConstraint("fingerprint", name=op.f("uq_unmatched_cluster_fingerprint")),
    )
    op.create_index(op.f("ix_unmatched_cluster_last_seen"), "unmatched_cluster", ["last_seen"])

    op.create_table(
        "verification_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("article_id", sa.String(128), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("environment", sa.JSON(), nullable=False),
        sa.Column("started_at", _TS, nullable=False),
        sa.Column("duration_s", sa.Float(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("created_at", _TS, nullable=False),
        sa.CheckConstraint(
            "outcome IN ('verified', 'stale', 'drifted', 'fix-broken', 'unverifiable', 'error')",
            name=op.f("ck_verification_run_outcome"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_verification_run")),
        sa.UniqueConstraint("run_id", name=op.f("uq_verification_run_run_id")),
    )
    op.create_index(op.f("ix_verification_run_article_id"), "verification_run", ["article_id"])

    op.create_table(
        "api_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("scopes", sa.String(256), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("revoked_at", _TS, nullable=True),
        sa.Column("last_used_at", _TS, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_token")),
        sa.UniqueConstraint("name", name=op.f("uq_api_token_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_token_token_hash")),
    )


def downgrade() -> None:
    # Children first; dropping a table drops its indexes on both engines.
    op.drop_table("api_token")
    op.drop_table("verification_run")
    op.drop_table("unmatched_cluster")
    op.drop_table("feedback")
    op.drop_table("match_event")

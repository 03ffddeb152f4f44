"""feedback: one verdict per event per client; match events found by their permalink key.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25

Feedback used to name the event by its sequential id and accept any number of
verdicts, so one client could post "wrong" on every event in turn (issues 20
and 24). Now it names the event by the unguessable key of its permalink
(``/r/<id>/<key>``), hence the unique index on ``match_event.view_key``, and
each client (a hash of the event id and its address, ``feedback.client_key``)
holds one verdict per event, hence the unique index on the pair. Unique
indexes rather than constraints: SQLite adds them without a table rebuild,
and both engines treat NULLs as distinct, so older rows (no client key) stay.
``match_event.idempotency_body`` (the body's sha256) lets an ``Idempotency-Key``
reused with another body be refused (422) instead of answered with the first
event (issue 24, item 8).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

VIEW_KEY = "ix_match_event_view_key"
ONE_VERDICT = "uq_feedback_match_event_id_client_key"


def upgrade() -> None:
    op.add_column("feedback", sa.Column("client_key", sa.String(64), nullable=True))
    op.create_index(ONE_VERDICT, "feedback", ["match_event_id", "client_key"], unique=True)
    op.create_index(VIEW_KEY, "match_event", ["view_key"], unique=True)
    op.add_column("match_event", sa.Column("idempotency_body", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_event") as batch:
        batch.drop_column("idempotency_body")
    op.drop_index(VIEW_KEY, table_name="match_event")
    op.drop_index(ONE_VERDICT, table_name="feedback")
    with op.batch_alter_table("feedback") as batch:
        batch.drop_column("client_key")

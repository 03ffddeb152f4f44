"""The web result page's stored view: match_event.view (JSON) and match_event.view_key.

Revision ID: 0004
Revises: 0001
Create Date: 2026-11-24

``view`` holds the redacted answer as the web result page renders it (matches
with their evidence, the events, the redacted log lines around the evidence
with their line numbers); ``view_key`` is the random part of the page's
permalink. Both are null for answers given to the JSON API. Batch mode, so
SQLite rebuilds the table where it must.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("match_event") as batch:
        batch.add_column(sa.Column("view", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("view_key", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_event") as batch:
        batch.drop_column("view_key")
        batch.drop_column("view")

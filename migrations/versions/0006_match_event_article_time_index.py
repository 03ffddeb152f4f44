"""match_event: one index on (top_article_id, created_at) instead of top_article_id alone.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25

Every article page, the library page and each /metrics scrape ask for each
article's newest match event. With the time in the index that is one lookup
an article; before, it read every event of the article (every event, with
the GROUP BY it replaces). The new index also serves what the old one did:
lookups and counts by top_article_id alone use its first column.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_match_event_top_article_id_created_at"


def upgrade() -> None:
    op.create_index(INDEX, "match_event", ["top_article_id", "created_at"])
    op.drop_index("ix_match_event_top_article_id", table_name="match_event")


def downgrade() -> None:
    op.create_index("ix_match_event_top_article_id", "match_event", ["top_article_id"])
    op.drop_index(INDEX, table_name="match_event")

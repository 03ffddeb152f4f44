"""verification_run.environment_key: the newest run per environment, chosen by the database.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24

The key (``app.store.environments.environment_key``: sha256 of the Python minor
version, torch, CUDA build, GPU model and count, and package versions) is
computed for the rows already stored, then the column becomes NOT NULL.
Batch mode, so SQLite rebuilds the table where it must.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.store.environments import environment_key

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("verification_run") as batch:
        batch.add_column(sa.Column("environment_key", sa.String(64), nullable=True))
    runs = sa.table(
        "verification_run",
        sa.column("id", sa.Integer()),
        sa.column("environment", sa.JSON()),
        sa.column("environment_key", sa.String(64)),
    )
    connection = op.get_bind()
    stored = connection.execute(sa.select(runs.c.id, runs.c.environment)).all()
    for run_id, environment in stored:
        key = environment_key(environment)
        connection.execute(runs.update().where(runs.c.id == run_id).values(environment_key=key))
    with op.batch_alter_table("verification_run") as batch:
        batch.alter_column("environment_key", existing_type=sa.String(64), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("verification_run") as batch:
        batch.drop_column("environment_key")

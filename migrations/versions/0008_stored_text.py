"""stored_text: an event's excerpt and view stored once, however many pastes carry them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26

Each anonymous paste stored its excerpt (up to 8 KiB) and its result page's
view (JSON) in its own ``match_event`` row, identical pastes included (issue
24, item 6). Both now live in ``stored_text`` rows named by the SHA-256 of
their text (the view as canonical JSON: sorted keys, no spaces), counted in
``uses``; ``match_event.excerpt_id`` and ``view_id`` point at them. The rows
already stored are moved over, duplicates merged; the downgrade copies the
texts back. Batch mode, so SQLite rebuilds ``match_event`` where it must.
"""

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500

texts = sa.table(
    "stored_text",
    sa.column("id", sa.Integer()),
    sa.column("digest", sa.String(64)),
    sa.column("body", sa.Text()),
    sa.column("uses", sa.Integer()),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def _events(*columns: str) -> sa.TableClause:
    types = {"excerpt": sa.Text(), "view": sa.JSON(none_as_null=True)}
    return sa.table(
        "match_event",
        sa.column("id", sa.Integer()),
        *(sa.column(name, types.get(name, sa.Integer())) for name in columns),
    )


def upgrade() -> None:
    op.create_table(
        "stored_text",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stored_text")),
        sa.UniqueConstraint("digest", name=op.f("uq_stored_text_digest")),
    )
    with op.batch_alter_table("match_event") as batch:
        batch.add_column(sa.Column("excerpt_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("view_id", sa.Integer(), nullable=True))
    _move_texts_over()
    with op.batch_alter_table("match_event") as batch:
        batch.drop_column("excerpt")
        batch.drop_column("view")
        for column in ("excerpt_id", "view_id"):
            batch.create_foreign_key(
                op.f(f"fk_match_event_{column}_stored_text"), "stored_text", [column], ["id"]
            )
            batch.create_index(op.f(f"ix_match_event_{column}"), [column])


def _move_texts_over() -> None:
    """Every event's excerpt and view into ``stored_text``, a row per distinct text."""
    connection = op.get_bind()
    events = _events("excerpt", "view", "excerpt_id", "view_id")
    ids: dict[str, int] = {}
    last = 0
    while True:
        rows = connection.execute(
            sa.select(events.c.id, events.c.excerpt, events.c.view)
            .where(events.c.id > last)
            .order_by(events.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        for event_id, excerpt, view in rows:
            values = {
                "excerpt_id": _text_id(connection, ids, excerpt) if excerpt else None,
                "view_id": None if view is None else _text_id(connection, ids, _canonical(view)),
            }
            connection.execute(events.update().where(events.c.id == event_id).values(values))
        last = rows[-1][0]


def _canonical(view: Any) -> str:
    return json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _text_id(connection: sa.Connection, ids: dict[str, int], text: str) -> int:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if digest in ids:
        connection.execute(
            texts.update().where(texts.c.id == ids[digest]).values(uses=texts.c.uses + 1)
        )
        return ids[digest]
    inserted = connection.execute(
        texts.insert()
        .values(digest=digest, body=text, uses=1, created_at=datetime.now(UTC))
        .returning(texts.c.id)
    )
    ids[digest] = int(inserted.scalar_one())
    return ids[digest]


def downgrade() -> None:
    with op.batch_alter_table("match_event") as batch:
        batch.add_column(sa.Column("excerpt", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("view", sa.JSON(), nullable=True))
    connection = op.get_bind()
    events = _events("excerpt", "view", "excerpt_id", "view_id")
    bodies = dict(connection.execute(sa.select(texts.c.id, texts.c.body)).all())
    stored = connection.execute(sa.select(events.c.id, events.c.excerpt_id, events.c.view_id)).all()
    for event_id, excerpt_id, view_id in stored:
        values = {
            "excerpt": bodies.get(excerpt_id, "") if excerpt_id is not None else "",
            "view": None if view_id is None else json.loads(bodies[view_id]),
        }
        connection.execute(events.update().where(events.c.id == event_id).values(values))
    with op.batch_alter_table("match_event") as batch:
        batch.drop_index(op.f("ix_match_event_view_id"))
        batch.drop_index(op.f("ix_match_event_excerpt_id"))
        batch.drop_constraint(op.f("fk_match_event_view_id_stored_text"), type_="foreignkey")
        batch.drop_constraint(op.f("fk_match_event_excerpt_id_stored_text"), type_="foreignkey")
        batch.drop_column("view_id")
        batch.drop_column("excerpt_id")
        batch.alter_column("excerpt", existing_type=sa.Text(), server_default=None)
    op.drop_table("stored_text")

"""Verifier runs: stored idempotently by run id, and the newest per article and environment.

Callers: ``POST /api/v1/verifications`` and ``errkb verify ingest`` write;
the article pages and ``/api/v1/articles/{id}`` read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.store.environments import environment_key
from app.store.tables import VerificationRun, utcnow
from app.store.transaction import aware, dialect_insert, done, guarded


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


@guarded
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
        "started_at": aware(started_at, "started_at"),
        "duration_s": duration_s,
        "detail": detail,
    }
    stmt = dialect_insert(session, VerificationRun).values(
        run_id=run_id, created_at=utcnow(), **payload
    )
    stmt = stmt.on_conflict_do_nothing(index_elements=["run_id"])
    inserted = session.exec(stmt.returning(col(VerificationRun.id))).scalar_one_or_none()
    run = session.exec(select(VerificationRun).where(VerificationRun.run_id == run_id)).one()
    done(session, [run])
    if inserted is not None:
        return Recorded("created", run)
    same = all(getattr(run, key) == value for key, value in payload.items())
    return Recorded("duplicate" if same else "conflict", run)


@guarded
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
    done(session, rows)
    return rows


@guarded
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
    done(session, rows)
    return rows

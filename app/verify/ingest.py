"""Load bundled runs into the database: each run once, however often it is loaded (F4).

A line whose run_id is already stored with the same payload is a duplicate
(a bundle loaded twice); one stored with a different payload is a conflict,
reported and never overwritten.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.store.verifications import record_verification
from app.verify.outcome import Verification


@dataclass(frozen=True)
class Ingested:
    created: int
    duplicates: int
    conflicts: tuple[str, ...]  # run ids taken by a different payload


def ingest(engine: Engine, runs: Sequence[Verification]) -> Ingested:
    """Store each run once; what was new, what was there already, what conflicts."""
    statuses: dict[str, list[str]] = {"created": [], "duplicate": [], "conflict": []}
    with Session(engine) as session:
        for run in runs:
            recorded = record_verification(
                session,
                run_id=run.run_id,
                article_id=run.article_id,
                content_hash=run.content_hash,
                outcome=run.outcome,
                environment=run.environment,
                started_at=run.started_at,
                duration_s=run.duration_s,
                detail=run.detail,
            )
            statuses[recorded.status].append(run.run_id)
    return Ingested(
        len(statuses["created"]), len(statuses["duplicate"]), tuple(statuses["conflict"])
    )

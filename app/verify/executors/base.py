"""The executor protocol: two methods, so a fake is a plain function (STYLE.md rule 9).

``run`` is called from several threads at once, one call per job, and blocks
until that job is done; an executor bounds how many really run at the same
time. ``resources`` (the hosts it can place runs on) is what ``plan.py``
checks before anything is submitted, so no run is ever left pending (E10).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from app.articles.model import Requirements
from app.verify.model import Job, Resources, RunResult
from app.verify.plan import why_not


class Executor(Protocol):
    name: str
    resources: Resources

    def run(self, job: Job) -> RunResult:
        """Run ``job``'s scripts somewhere and report what happened; thread-safe."""
        ...

    def close(self) -> None:
        """Release what the executor holds (a Ray connection it opened, worker threads)."""
        ...


def refusal(job: Job, resources: Resources, executor: str) -> RunResult | None:
    """An *unverifiable* result at once when no host can take ``job`` (E10), else None.

    ``plan.py`` already refused such jobs; executors check again because a
    cluster can shrink between planning and submitting.
    """
    requires = Requirements(gpus=job.gpus, processes=job.processes)
    reason = why_not(requires, resources)
    if reason is None:
        return None
    return RunResult(
        job.run_id,
        job.article_id,
        datetime.now(UTC),
        0.0,
        {"executor": executor},
        unrunnable=reason,
    )


def failed(job: Job, executor: str, reason: str, started_at: datetime | None = None) -> RunResult:
    """An *error* result for a job the executor lost (a dead cluster, no answer in time)."""
    started = started_at or datetime.now(UTC)
    duration = (datetime.now(UTC) - started).total_seconds()
    return RunResult(
        job.run_id, job.article_id, started, duration, {"executor": executor}, failure=reason
    )

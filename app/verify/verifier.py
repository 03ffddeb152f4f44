"""The verifier's one door: plan, run on an executor, judge with errkb's own matcher.

``verify(live, ids, executor)`` plans against the executor's resources
(``plan.py``), ships each runnable article's scripts as a ``Job``, runs the
jobs concurrently (the executor bounds what really runs at once: CPU slots
and free GPUs locally, the cluster's resources on Ray), matches each repro's
output against the KB's index and classifies the result (``outcome.py``). An
executor that raises becomes an *error* for that article, never a crash of
the whole run (STYLE.md rule 5).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from datetime import UTC, datetime
from pathlib import Path

from app.errors import InputError
from app.matching.index import SignatureIndex
from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import LiveKb
from app.verify.executors.base import Executor, failed
from app.verify.model import REPRO, Interpreters, Job, RunResult
from app.verify.outcome import Verdict, Verification, classify, detail_of
from app.verify.plan import Plan, PlannedRun, Unrunnable, make_plan

MAX_REPRO_BYTES = 4 << 20  # a repro folder is a few small scripts, not a data set
MAX_THREADS = 64

OnResult = Callable[[Verification], None]


def plan_for(live: LiveKb, ids: Sequence[str], executor: Executor) -> Plan:
    """The plan, or ``InputError`` naming every id the caller got wrong (exit status 2)."""
    articles = {key: loaded.article for key, loaded in live.kb.articles.items()}
    plan = make_plan(articles, ids, executor.resources)
    if plan.refused:
        raise InputError("; ".join(plan.refused))
    return plan


def verify(
    live: LiveKb,
    plan: Plan,
    executor: Executor,
    on_result: OnResult | None = None,
    interpreters: Interpreters | None = None,
) -> list[Verification]:
    """Run ``plan`` on ``executor``; results in plan order, each reported as it lands.

    ``interpreters`` names each article's interpreter (its package set's
    environment); an article whose environment could not be built is an
    *error* with the builder's reason, and nothing of it runs.
    """
    chosen = interpreters or Interpreters()
    done: list[Verification] = [unverifiable(live, item, executor.name) for item in plan.unrunnable]
    done += [
        not_built(live, item.article_id, chosen.broken[item.article_id], executor.name)
        for item in plan.runs
        if item.article_id in chosen.broken
    ]
    for verification in done:
        if on_result:
            on_result(verification)
    jobs = [
        build_job(
            live,
            item,
            chosen.by_article.get(item.article_id),
            chosen.fixed_by_article.get(item.article_id),
        )
        for item in plan.runs
        if item.article_id not in chosen.broken
    ]
    for verification in _run_all(live.index, jobs, executor):
        done.append(verification)
        if on_result:
            on_result(verification)
    return sorted(done, key=lambda v: v.article_id)


def _run_all(index: SignatureIndex, jobs: Sequence[Job], executor: Executor) -> list[Verification]:
    if not jobs:
        return []
    workers = min(len(jobs), MAX_THREADS)
    with ThreadPoolExecutor(workers, thread_name_prefix="errkb-verify") as pool:
        futures: dict[Future[RunResult], Job] = {pool.submit(executor.run, j): j for j in jobs}
        return [_judged(index, futures[f], f, executor.name) for f in as_completed(futures)]


def _judged(
    index: SignatureIndex, job: Job, future: Future[RunResult], executor: str
) -> Verification:
    try:
        result = future.result()
    except Exception as exc:  # an executor bug or a lost cluster: this article's error only
        result = failed(job, executor, f"executor: {type(exc).__name__}: {exc}")
    return judge(index, job, result)


def judge(index: SignatureIndex, job: Job, result: RunResult) -> Verification:
    """Match the repro's output and classify the run."""
    repro = result.script(REPRO)
    first = ranked_first(repro.output, index) if repro and repro.output else None
    verdict = classify(job.article_id, result, first)
    return _verification(job.run_id, job.article_id, job.content_hash, result, verdict)


def ranked_first(output: str, index: SignatureIndex) -> str | None:
    """The article errkb ranks first on ``output``: what a user pasting it would be shown."""
    top = match_text(output, index, MatchOptions(top_k=1)).top
    return top.article_id if top else None


def unverifiable(live: LiveKb, item: Unrunnable, executor: str) -> Verification:
    """A planned-out article, recorded at once (never left pending, E10)."""
    return _answered(live, item.article_id, executor, unrunnable=item.reason)


def not_built(live: LiveKb, article_id: str, reason: str, executor: str) -> Verification:
    """An article whose environment could not be built: an *error* naming why."""
    return _answered(live, article_id, executor, failure=f"environment: {reason}")


def _answered(
    live: LiveKb,
    article_id: str,
    executor: str,
    *,
    unrunnable: str | None = None,
    failure: str | None = None,
) -> Verification:
    """A result decided before anything ran."""
    run_id, started = new_run_id(), datetime.now(UTC)
    result = RunResult(
        run_id,
        article_id,
        started,
        0.0,
        {"executor": executor},
        unrunnable=unrunnable,
        failure=failure,
    )
    verdict = classify(article_id, result, None)
    return _verification(run_id, article_id, content_hash(live, article_id), result, verdict)


def _verification(
    run_id: str, article_id: str, content_hash: str, result: RunResult, verdict: Verdict
) -> Verification:
    return Verification(
        run_id=run_id,
        article_id=article_id,
        content_hash=content_hash,
        outcome=verdict.outcome,
        environment=result.environment,
        started_at=result.started_at,
        duration_s=result.duration_s,
        detail=detail_of(verdict, result),
        reason=verdict.reason,
    )


def build_job(
    live: LiveKb, item: PlannedRun, python: str | None = None, fixed_python: str | None = None
) -> Job:
    """The article's run with its scripts' bytes, so a worker needs no checkout of the KB.

    With ``repro.fixed_requires`` the job carries fixed.py's own set; the
    worker runs fixed.py with ``fixed_python`` (its set's environment) or, when
    there is none (``--python``, the ray executor), with its one interpreter,
    which must then meet that set as well.
    """
    repro = item.repro
    fixed = repro.fixed_requires
    return Job(
        run_id=new_run_id(),
        article_id=item.article_id,
        content_hash=content_hash(live, item.article_id),
        launcher=repro.launcher,
        processes=repro.requires.processes,
        gpus=repro.requires.gpus,
        timeout_s=float(repro.timeout_s),
        packages=tuple(repro.requires.packages),
        files=_repro_files(live.kb.root / "repros" / item.article_id),
        python=python,
        fixed_packages=None if fixed is None else tuple(fixed.packages),
        fixed_python=None if fixed is None else fixed_python,
    )


def _repro_files(folder: Path) -> tuple[tuple[str, bytes], ...]:
    files = tuple(
        (path.name, path.read_bytes()) for path in sorted(folder.iterdir()) if path.is_file()
    )
    if sum(len(data) for _, data in files) > MAX_REPRO_BYTES:
        raise InputError(f"{folder} holds more than {MAX_REPRO_BYTES} bytes")
    return files


def content_hash(live: LiveKb, article_id: str) -> str:
    """sha256 of the article's file: which text of the article this run verified."""
    return hashlib.sha256(live.kb.articles[article_id].source.path.read_bytes()).hexdigest()


def new_run_id() -> str:
    return uuid.uuid4().hex

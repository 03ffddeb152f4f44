"""Token-protected writes: ``POST /api/v1/verifications`` (verify) and ``/admin/reload`` (admin).

Verifications are idempotent by ``run_id`` (target F4; Ray may re-run a task
whose worker died): 201 when stored, 200 with the stored run when the same
payload comes again, 422 ``idempotency_key_reused`` when the run_id is taken by a
different payload (as the IETF Idempotency-Key draft answers a reused key).
Their free text (``detail`` and the environment's strings) is redacted first.

A reload builds the new KB and index beside the one in use, off the event
loop, runs lint and every article's self-tests, and swaps only a clean one;
otherwise 422 with the problems while the old KB keeps serving (target B6).
It then replays recent stored events against the new KB (issue 9): a change
flagged for taking an article's matches away is held back (409) unless
forced; ``dry_run=true`` returns that diff and swaps nothing.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Depends, Query, Response, status
from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from app.api.auth import require
from app.api.deps import ServicesDep
from app.api.schemas import ReloadOut, VerificationIn, VerificationOut, errors
from app.authoring.dryrun import render as render_dryrun
from app.http.errors import HttpError
from app.matching.redact import redact
from app.service.reload import ReloadBusy
from app.store.tables import ApiToken
from app.store.verifications import Recorded, record_verification

log = logging.getLogger(__name__)
SMALL_BODY = 1 << 20
router = APIRouter(tags=["workers and admins"], max_body_size=SMALL_BODY)
AUTH_ERRORS = errors(400, 401, 403, 413, 422)


def redact_json(value: Any) -> Any:
    """Every string inside a JSON value, redacted; keys too (an env dump may hold secrets)."""
    if isinstance(value, str):
        return redact(value).text
    if isinstance(value, list):
        return [redact_json(item) for item in value]
    if isinstance(value, dict):
        return {redact(str(k)).text: redact_json(v) for k, v in value.items()}
    return value


def _store_run(engine: Engine, run: VerificationIn) -> Recorded:
    with Session(engine) as session:
        return record_verification(
            session,
            run_id=run.run_id,
            article_id=run.article_id,
            content_hash=run.content_hash,
            outcome=run.outcome,
            environment=redact_json(run.environment),
            started_at=run.started_at,
            duration_s=run.duration_s,
            detail=redact(run.detail).text if run.detail else None,
        )


@router.post(
    "/api/v1/verifications",
    status_code=status.HTTP_201_CREATED,
    response_model=VerificationOut,
    responses={200: {"model": VerificationOut, "description": "A retry."}}
    | AUTH_ERRORS
    | errors(422, 503),
)
async def post_verification(
    services: ServicesDep,
    run: VerificationIn,
    response: Response,
    _token: Annotated[ApiToken, Depends(require("verify"))],
) -> VerificationOut:
    """Store one verifier run; safe to retry with the same `run_id`."""
    recorded = await run_in_threadpool(_store_run, services.engine, run)
    if recorded.status == "conflict":
        raise HttpError(
            422, "this run_id was stored with a different payload", code="idempotency_key_reused"
        )
    if recorded.status == "duplicate":
        response.status_code = status.HTTP_200_OK
    return VerificationOut.model_validate(recorded.run, from_attributes=True)


@router.post(
    "/api/v1/admin/reload", response_model=ReloadOut, responses=AUTH_ERRORS | errors(409, 503)
)
async def reload(
    services: ServicesDep,
    _token: Annotated[ApiToken, Depends(require("admin"))],
    dry_run: Annotated[
        bool, Query(description="Build, lint and replay stored events; swap nothing.")
    ] = False,
    force: Annotated[
        bool, Query(description="Swap even when the replay flags an article.")
    ] = False,
) -> ReloadOut:
    """Load, lint, index and self-test the KB folder again; swap only a clean revision.

    Before swapping, the stored match events of the last days are replayed
    against the new KB: a change that takes more than the allowed share of an
    article's past matches away answers 409 with the diff unless `force`.
    """
    if services.reloader is None:
        raise HttpError(503, "reload is not available on this instance")
    reloader = services.reloader
    try:
        outcome = await anyio.to_thread.run_sync(lambda: reloader(apply=not dry_run, force=force))
    except ReloadBusy as exc:
        raise HttpError(409, "a reload is already running") from exc
    if outcome.proposed is None and not outcome.swapped:
        services.metrics.reload_failures.inc()
        log.warning("reload refused: %d problem(s)", len(outcome.problems))
        raise HttpError(
            422,
            f"the KB has {len(outcome.problems)} problem(s); still serving {outcome.revision[:12]}",
            code="kb_invalid",
            details=[problem.format() for problem in outcome.problems],
        )
    if outcome.flagged and not outcome.swapped and not dry_run:
        assert outcome.dryrun is not None
        names = ", ".join(impact.article_id for impact in outcome.dryrun.flagged)
        raise HttpError(
            409,
            f"the new KB takes past matches away from {names}; still serving "
            f"{outcome.revision[:12]} (review with dry_run=true, then force=true)",
            code="dryrun_flagged",
            details=render_dryrun(outcome.dryrun).splitlines(),
        )
    if outcome.swapped:
        services.metrics.reloads.inc()
        log.info("reloaded the KB: revision %s", outcome.revision[:12])
    articles = len(services.kb.current.kb)
    services.metrics.show_kb(services.kb.current.revision, articles)
    return ReloadOut(
        swapped=outcome.swapped,
        revision=outcome.revision,
        proposed=outcome.proposed,
        articles=articles,
        warnings=[problem.format() for problem in outcome.problems],
        dryrun=outcome.dryrun.to_json() if outcome.dryrun is not None else None,
    )

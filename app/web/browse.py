"""The paste page, the article list and pages, and the unmatched list.

Articles come from the KB in memory; the database adds statistics and the
verification matrix, and a database outage costs those (the page says so),
never the article.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from app.articles.lifecycle import Lifecycle
from app.articles.model import Article
from app.authoring.scaffold import Seed, scaffold, suggest_id
from app.errors import InputError, StoreError
from app.http.deps import ServicesDep
from app.http.state import Services
from app.service.article_pages import article_page as read_article_page
from app.service.article_states import article_lifecycles
from app.service.cluster_seeds import seed_for_cluster
from app.store.engine import reader
from app.store.match_events import list_unmatched
from app.store.tables import UnmatchedCluster, VerificationRun
from app.web.pages import message_page, render

log = logging.getLogger(__name__)
UNMATCHED_PAGE = 100
ENV_KEYS = ("python", "torch", "cuda", "gpu_model", "gpu_count", "cuda_driver", "platform")
"""What the verifier records (app/verify/probe.py, environment.py), in the order shown."""


def _articles(services: Services) -> list[Article]:
    """The public articles (drafts stay private, issue 21)."""
    articles = services.kb.current.kb.articles.values()
    return [x.article for x in articles if x.article.status != "draft"]


async def paste_page(request: Request, services: ServicesDep) -> Response:
    """``GET /``: the text area, the file field, the language switch, the privacy note."""
    examples = sorted(_articles(services), key=lambda a: a.id)[:8]
    return render(request, "paste.html", {"error": "", "examples": examples})


def _run(run: VerificationRun) -> dict[str, Any]:
    environment = run.environment or {}
    shown = [(key, str(environment[key])) for key in ENV_KEYS if environment.get(key)]
    packages = environment.get("packages")
    if isinstance(packages, dict):
        named = {key for key, _ in shown}
        extra = [(str(k), str(v)) for k, v in sorted(packages.items()) if v and k not in named]
        shown += extra[:6]
    fixed = environment.get("fixed")  # fixed.py's own environment (repro.fixed_requires)
    if isinstance(fixed, dict) and isinstance(fixed.get("packages"), dict):
        own = sorted(fixed["packages"].items())
        shown += [(f"fixed.py {k}", str(v)) for k, v in own if v and k != "torch"][:6]
    return {
        "environment": shown,
        "outcome": run.outcome,
        "date": run.started_at.strftime("%Y-%m-%d %H:%M"),
        "duration_s": run.duration_s,
    }


async def article_page(request: Request, services: ServicesDep) -> Response:
    """``GET /articles/<id>``: one language at a time with a switch; stats and verification."""
    page = await run_in_threadpool(
        read_article_page,
        services.engine,
        services.kb.current,
        request.path_params["article_id"],
        stale_after_days=services.stale_after_days,
    )
    if page is None:
        return message_page(request, 404, "not_found", lead_key="not_found_lead")
    runs = [_run(run) for run in page.runs]
    context = {"a": page.article, "life": page.lifecycle, "stats": page.stats, "runs": runs}
    return render(request, "article.html", context)


async def _lifecycles(services: Services) -> dict[str, Lifecycle]:
    return await run_in_threadpool(
        article_lifecycles,
        services.engine,
        services.kb.current,
        stale_after_days=services.stale_after_days,
    )


def _clusters(engine: Engine) -> list[UnmatchedCluster] | None:
    try:
        with Session(reader(engine)) as session:
            return list_unmatched(session, limit=UNMATCHED_PAGE)
    except StoreError as exc:
        log.warning("unmatched list unavailable: %s", type(exc.__cause__ or exc).__name__)
        return None


def cluster_message(exception: str, sample: str, limit: int = 200) -> str:
    """The error line of a cluster's sample (``ValueError: ...``), so the list says what broke."""
    lines = [line.strip() for line in sample.splitlines() if line.strip()]
    named = [line for line in lines if exception and exception in line and ":" in line]
    line = (named or lines or [exception])[-1]
    return line if len(line) <= limit else line[: limit - 1] + "…"


async def unmatched_page(request: Request, services: ServicesDep) -> Response:
    """``GET /unmatched``: the clusters of unknown errors, most frequent first, with messages."""
    clusters = await run_in_threadpool(_clusters, services.engine)
    rows = [(c, cluster_message(c.exception, c.sample)) for c in clusters or []]
    return render(request, "unmatched.html", {"clusters": rows, "down": clusters is None})


def _seed(services: Services, fingerprint: str) -> Seed | None:
    try:
        return seed_for_cluster(services.engine, services.kb.current, fingerprint)
    except (StoreError, InputError) as exc:
        log.info("no draft for cluster %s: %s", fingerprint[:12], type(exc).__name__)
        return None


async def cluster_draft_page(request: Request, services: ServicesDep) -> Response:
    """``GET /unmatched/<fingerprint>/draft``: what ``errkb new`` would write, to start from."""
    fingerprint = request.path_params["fingerprint"][:64]
    seed = await run_in_threadpool(_seed, services, fingerprint)
    if seed is None:
        return message_page(request, 404, "not_found", lead_key="not_found_lead")
    article_id = suggest_id(seed)
    files = scaffold(article_id, seed)
    context = {
        "seed": seed,
        "article_id": article_id,
        "command": f"errkb new {article_id} --from-cluster {seed.fingerprint[:12]}",
        "files": sorted(files.items()),
    }
    return render(request, "draft.html", context)

"""``create_app(settings)``: the one place that wires the service together.

Nothing is built at import time: tests build a fresh app per test on a
temporary database, and ``errkb serve`` builds one from the environment
through ``create_app_from_env`` (uvicorn's factory mode). Each app has its
own metrics registry, rate limiter, match cache and writer thread.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from starlette.middleware.trustedhost import TrustedHostMiddleware

from app import web
from app.api.routes import admin, articles, docs, health, learning, match, ops
from app.http.bodies import BodyLimits
from app.http.errors import install_error_handlers
from app.http.middleware import RequestMiddleware
from app.http.ratelimit import RateLimiter, parse_networks
from app.http.state import Services
from app.matching.index import SignatureIndex
from app.matching.pipeline import warm_up
from app.matching.redact import prefilter_in_use
from app.service import collector
from app.service.allocator import tune_malloc
from app.service.kb import prepare_valid_kb
from app.service.metrics import Metrics, make_metrics
from app.service.previews import stored_event_review
from app.service.recorder import Recorder
from app.service.redact_prefilter import install_prefilter
from app.service.reload import KbHolder, Reloader
from app.service.runner import MatchRunner
from app.service.storage_budget import StorageBudget
from app.service.warm_samples import warm_samples
from app.settings import Settings
from app.store.engine import check_sqlite_placement, make_engine
from app.web.pages import warm_pages

VERSION = "0.1.0"
log = logging.getLogger(__name__)


def warm_in_background(
    index: SignatureIndex, samples: Sequence[bytes] = (), index_dir: Path | None = None
) -> threading.Thread:
    """Compile what the first request would (``warm_up``) once the service is ready.

    A KB from its snapshot can answer as soon as its index is loaded; the
    warm-up (every redaction rule, the case-folded set, the common line
    shapes; then the page templates and Markdown parser, imported here rather
    than at start) only spares the first requests that one-time cost, so it
    no longer holds ``/readyz`` back (issue 23). A request that comes first
    compiles what it needs itself, as a one-shot ``errkb match`` does; each
    compile is kept once and equal whichever thread made it. A failure here
    costs speed, not answers: it is logged. ``samples`` are real-shaped logs
    (``warm_samples``) whose common RE2 states the first request then finds built.
    With ``index_dir``, it first builds the redaction prefilter that
    ``load_prefilter`` found missing or damaged (``app.service.redact_prefilter``),
    so ASCII text is redacted without the RE2 set; the set is still compiled
    here, for the rest.
    """

    def run() -> None:
        if index_dir is not None:
            try:
                install_prefilter(index_dir)
            except Exception:
                log.exception("the redaction prefilter failed; redaction uses the RE2 set")
        try:
            warm_up(index, samples)
        except Exception:
            log.exception("the warm-up match failed; the first requests compile what they need")
        try:
            warm_pages()
        except Exception:
            log.exception("the page warm-up failed; the first page builds what it needs")

    thread = threading.Thread(target=run, name="errkb-warm-up", daemon=True)
    thread.start()
    return thread


def load_prefilter(index_dir: Path) -> bool:
    """Load the saved redaction prefilter before ``/readyz`` (a millisecond), never build it.

    Then the first requests redact ASCII text through it instead of compiling
    the RE2 set (about 0.1 s of CPU) themselves. False: none usable was saved;
    the warm-up thread builds one. A failure costs speed, not redaction. A
    process that redacts through one already (another app of the same code,
    as in tests) keeps it: the file's key is errkb's code and Hyperscan's
    version, the same for every app of a process.
    """
    if prefilter_in_use():
        return True
    try:
        return install_prefilter(index_dir, build=False)
    except Exception:
        log.exception("cannot load the redaction prefilter; redaction uses the RE2 set")
        return False


def _services(settings: Settings, metrics: Metrics) -> Services:
    """Load the KB (refusing a bad one), open the engine, build the runner."""
    check_sqlite_placement(settings.database_url.get_secret_value(), replicas=settings.replicas)
    live = prepare_valid_kb(
        settings.kb_path, index_dir=settings.index_dir, snapshot=True, warm=False
    )
    kb = KbHolder(live)
    loaded = load_prefilter(settings.index_dir)
    gc.freeze()  # the KB and index live forever: keep them out of every collection
    collector.resume()  # paused by ``errkb serve`` for its imports and this load
    warm_in_background(
        live.index, warm_samples(live.kb), index_dir=None if loaded else settings.index_dir
    )
    engine = make_engine(settings.database_url.get_secret_value())
    runner = MatchRunner(
        kb=kb,
        metrics=metrics,
        recorder=Recorder(engine, metrics, retention_days=settings.retention_days),
        big_body_bytes=settings.big_body_bytes,
        big_match_slots=settings.big_match_slots,
        cache_seconds=settings.cache_seconds,
        big_followers=settings.big_followers,
        follower_max_bytes=settings.big_follower_max_bytes,
        answer_seconds=settings.answer_seconds,
        min_rate=settings.big_body_min_rate,
        storage=StorageBudget(settings.stored_bytes_per_client_day),
    )
    metrics.show_kb(kb.current.revision, len(kb.current.kb))
    return Services(
        engine=engine,
        kb=kb,
        default_lang=settings.default_lang,
        metrics=metrics,
        runner=runner,
        reloader=Reloader(
            kb,
            settings.kb_path,
            settings.index_dir,
            review=stored_event_review(
                engine, days=settings.dryrun_days, max_loss=settings.dryrun_max_loss
            ),
        ),
        limits=BodyLimits(
            wire=settings.max_body_bytes,
            text=settings.max_text_bytes,
            seconds=settings.body_seconds,
        ),
        rate_limiter=RateLimiter(settings.rate_limit_per_minute, settings.rate_limit_burst),
        trusted_proxies=parse_networks(settings.trusted_proxies),
        public_url=settings.public_url,
        hosts_checked=hosts_checked(settings.allowed_hosts),
        stale_after_days=settings.stale_after_days,
        dryrun_days=settings.dryrun_days,
        dryrun_max_loss=settings.dryrun_max_loss,
    )


HOST_LINKS = (
    "ERRKB_PUBLIC_URL is unset: links in answers are relative (/r/..., /articles/...), since "
    "a request's Host header may be forged; set ERRKB_PUBLIC_URL to the service's public URL "
    "for absolute links"
)
"""Said at start-up (issue 24, item 8) when answers carry relative links."""


def hosts_checked(allowed_hosts: list[str]) -> bool:
    """Whether every request's Host is one of the operator's own names (no wildcard), so the
    URL a request came in on may be used for links."""
    return bool(allowed_hosts) and not any("*" in host for host in allowed_hosts)


def create_app(settings: Settings) -> FastAPI:
    """Build the app; the KB and the database engine are set up at start-up.

    A KB with errors refuses to start (``KbInvalid`` lists every problem with
    file and line) rather than serving half a knowledge base.
    """
    metrics = make_metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not settings.public_url and not hosts_checked(settings.allowed_hosts):
            log.warning(HOST_LINKS)
        services = _services(settings, metrics)
        app.state.services = services
        try:
            yield
        finally:
            if services.runner is not None:
                await services.runner.drain()
            if services.runner is not None and services.runner.recorder is not None:
                services.runner.recorder.close()
            services.engine.dispose()

    app = FastAPI(
        title="errkb",
        summary="Match a traceback or a job log to the article that fixes it.",
        version=VERSION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json" if settings.docs else None,
    )
    install_error_handlers(app)
    _routes(app, settings)
    if settings.allowed_hosts:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))
    app.add_middleware(RequestMiddleware, metrics=metrics, https=settings.https)
    return app


def _routes(app: FastAPI, settings: Settings) -> None:
    app.include_router(health.router)
    app.include_router(match.build_router(settings.max_body_bytes))
    app.include_router(articles.router)
    app.include_router(learning.router)
    app.include_router(admin.router)
    app.include_router(ops.router)
    if settings.docs:
        app.include_router(docs.router)
    if settings.echo_endpoint:
        app.include_router(ops.echo_router(settings.max_body_bytes))
    app.include_router(web.build_router(settings.max_body_bytes))
    app.router.routes.append(web.static_mount())


def create_app_from_env() -> FastAPI:
    """uvicorn factory: settings from ``ERRKB_*`` variables; big buffers go back to the OS."""
    tune_malloc()
    return create_app(Settings())

"""``create_app(settings)``: the one place that wires the service together.

Nothing is built at import time: tests build a fresh app per test on a
temporary database, and ``errkb serve`` builds one from the environment
through ``create_app_from_env`` (uvicorn's factory mode).
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api.routes import health
from app.kb import prepare_valid_kb
from app.services import KbHolder, Services
from app.settings import Settings
from app.store.engine import make_engine


def create_app(settings: Settings) -> FastAPI:
    """Build the app; the KB and the database engine are set up at start-up.

    A KB with errors refuses to start (``KbInvalid`` lists every problem with
    file and line) rather than serving half a knowledge base.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        kb = prepare_valid_kb(settings.kb_path, index_dir=settings.index_dir)
        gc.freeze()  # the KB and index live forever: keep them out of every collection
        engine = make_engine(settings.database_url)
        app.state.services = Services(
            engine=engine, kb=KbHolder(kb), default_lang=settings.default_lang
        )
        try:
            yield
        finally:
            engine.dispose()

    app = FastAPI(
        title="errkb",
        summary="Match a traceback or a job log to the article that fixes it.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.include_router(health.router)
    return app


def create_app_from_env() -> FastAPI:
    """uvicorn factory: settings from ``ERRKB_*`` variables."""
    return create_app(Settings())

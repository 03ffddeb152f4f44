"""What the service learns from each answered match: a match event, and the unmatched list.

Everything stored comes out of ``match_text`` already redacted (the events'
text fields pass through ``redact`` inside the pipeline), and it is bounded:
the excerpt is the chosen event's error line(s) and its own lines, at most
8 KB; an unmatched cluster keeps a 2 KB sample (targets A5, A7).

Writes go through one writer thread (``Recorder``): the event loop never
waits on SQLite's lock or a PostgreSQL round trip, SQLite sees one writer per
process, and a failing database costs a metric and a log line, never the
answer (issue 4: "a DB failure during a match must not fail the match").
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.matching.events_model import Event
from app.matching.normalize import fingerprint
from app.matching.result import MatchResult
from app.service.metrics import Metrics
from app.store.match_events import Purged, purge_before, record_match_events
from app.store.tables import utcnow

log = logging.getLogger(__name__)

EXCERPT_BYTES = 8 * 1024
SAMPLE_BYTES = 2 * 1024
PURGE_EVERY = timedelta(hours=1)
NO_EVENT = hashlib.sha256(b"errkb:no-event").hexdigest()
"""Fingerprint of a log in which no error event was found."""


@dataclass(frozen=True)
class Sighting:
    """One answered match, ready to store: redacted, bounded, no raw input."""

    fingerprint: str
    excerpt: str
    top_article_id: str | None
    score: float | None
    client_kind: str
    lang: str
    input_bytes: int
    event_count: int
    duration_ms: float
    kb_revision: str
    idempotency_key: str | None = None
    idempotency_body: str | None = None  # sha256 of the body the key came with
    unmatched_exception: str | None = None  # set when events were found but none matched
    view: dict[str, Any] | None = None  # the result page's view, stored with the event
    view_key: str | None = None  # its permalink key: /r/<id>/<key>


def cut(text: str, limit: int) -> str:
    """At most ``limit`` UTF-8 bytes, cut on a character boundary."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def excerpt_of(event: Event, limit: int = EXCERPT_BYTES) -> str:
    """The error line(s) first (what identifies it), then the event's own lines."""
    error, text = event.error_text.strip(), event.text.strip()
    joined = text if error in text else f"{error}\n\n{text}".strip()
    return cut(joined, limit)


def sighting_of(
    result: MatchResult,
    *,
    client_kind: str,
    lang: str,
    duration_ms: float,
    kb_revision: str,
    idempotency_key: str | None = None,
    idempotency_body: str | None = None,
) -> Sighting:
    """The root-cause event's fingerprint; the excerpt of the event the top match names."""
    root = result.events[0] if result.events else None
    top = result.top
    shown = result.events[top.event_index] if top else root
    unmatched = None
    if top is None and root is not None:
        unmatched = (root.exception or root.kind.value)[:256]
    return Sighting(
        fingerprint=fingerprint(root) if root else NO_EVENT,
        excerpt=excerpt_of(shown) if shown else "",
        top_article_id=top.article_id if top else None,
        score=round(top.score, 4) if top else None,
        client_kind=client_kind,
        lang=lang,
        input_bytes=result.input.bytes,
        event_count=len(result.events),
        duration_ms=round(duration_ms, 3),
        kb_revision=kb_revision,
        idempotency_key=idempotency_key,
        idempotency_body=idempotency_body,
        unmatched_exception=unmatched,
    )


def store_sightings(engine: Engine, batch: Sequence[tuple[Sighting, datetime]]) -> list[int]:
    """Insert the match events (and count the unmatched clusters) in one transaction."""
    with Session(engine) as session:
        return record_match_events(session, [_row(s, seen_at) for s, seen_at in batch])


def store_sighting(engine: Engine, sighting: Sighting, *, seen_at: datetime) -> int:
    """Insert one match event (and count its unmatched cluster); returns the event id."""
    return store_sightings(engine, [(sighting, seen_at)])[0]


def purge_stored(engine: Engine, *, before: datetime) -> Purged:
    """Delete what was stored before ``before`` (events with their feedback, old clusters)."""
    with Session(engine) as session:
        return purge_before(session, before=before)


def _row(sighting: Sighting, seen_at: datetime) -> dict[str, Any]:
    row: dict[str, Any] = {
        "fingerprint": sighting.fingerprint,
        "excerpt": sighting.excerpt,
        "top_article_id": sighting.top_article_id,
        "score": sighting.score,
        "client_kind": sighting.client_kind,
        "lang": sighting.lang,
        "input_bytes": sighting.input_bytes,
        "event_count": sighting.event_count,
        "duration_ms": sighting.duration_ms,
        "kb_revision": sighting.kb_revision,
        "idempotency_key": sighting.idempotency_key,
        "idempotency_body": sighting.idempotency_body,
        "view": sighting.view,
        "view_key": sighting.view_key,
        "created_at": seen_at,
    }
    if sighting.unmatched_exception is not None:
        row["unmatched"] = {
            "fingerprint": sighting.fingerprint,
            "exception": sighting.unmatched_exception,
            "sample": cut(sighting.excerpt, SAMPLE_BYTES),
            "seen_at": seen_at,
        }
    return row


class Recorder:
    """Stores sightings on one writer thread, in groups; ``record`` never raises.

    Requests queue their sightings; the writer takes everything queued when
    it gets to run and commits it as one transaction (group commit). Measured
    here, an event cost 0.61 ms on SQLite and 1.24 ms on PostgreSQL with a
    commit each, 0.37 and 0.66 ms in groups of 25. A group that fails is
    retried one by one, so a bad row costs only its own request's event id.
    """

    def __init__(
        self,
        engine: Engine,
        metrics: Metrics,
        *,
        retention_days: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.metrics = metrics
        self.retention = timedelta(days=retention_days) if retention_days > 0 else None
        self._clock = clock
        self._purged_tick: float | None = None
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="errkb-writer")
        self._lock = threading.Lock()
        self._queued: list[tuple[Sighting, datetime, Future[int]]] = []

    async def record(self, sighting: Sighting) -> int | None:
        """The stored event's id, or None when the database failed (counted and logged)."""
        job: Future[int] = Future()
        with self._lock:
            self._queued.append((sighting, utcnow(), job))
            first = len(self._queued) == 1
        if first:
            self._writer.submit(self._drain)
        try:
            return await asyncio.wrap_future(job)
        except Exception as exc:  # any database failure: the answer goes out anyway
            self.metrics.persistence_failures.inc()
            log.warning("match event not stored: %s", type(exc.__cause__ or exc).__name__)
            return None

    def _drain(self) -> None:
        with self._lock:
            batch, self._queued = self._queued, []
        try:
            ids = store_sightings(self.engine, [(s, seen_at) for s, seen_at, _ in batch])
        except Exception:
            self._one_by_one(batch)
            return
        for (_, _, job), event_id in zip(batch, ids, strict=True):
            job.set_result(event_id)
        self._purge_now_and_then(utcnow())

    def _purge_now_and_then(self, now: datetime) -> None:
        """Retention (F11): at most hourly, on the writer thread, after a group is stored.

        The hour is measured on the monotonic clock: a wall clock stepped back
        would otherwise hold the purge until it caught up again (G7).
        """
        if self.retention is None:
            return
        tick = self._clock()
        if self._purged_tick is not None and tick - self._purged_tick < PURGE_EVERY.total_seconds():
            return
        self._purged_tick = tick
        try:
            purged = purge_stored(self.engine, before=now - self.retention)
        except Exception as exc:  # a failed purge is retried at the next chance
            log.warning("retention purge failed: %s", type(exc.__cause__ or exc).__name__)
            return
        if purged.events or purged.clusters or purged.texts:
            log.info(
                "retention: %d event(s), %d cluster(s), %d stored text(s) purged",
                purged.events, purged.clusters, purged.texts,
            )  # fmt: skip

    def _one_by_one(self, batch: list[tuple[Sighting, datetime, Future[int]]]) -> None:
        for sighting, seen_at, job in batch:
            try:
                job.set_result(store_sighting(self.engine, sighting, seen_at=seen_at))
            except Exception as exc:
                job.set_exception(exc)

    def close(self) -> None:
        self._writer.shutdown(wait=True)

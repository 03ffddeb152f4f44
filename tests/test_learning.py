"""The Recorder's group commit on both engines: ids in order, one commit a group, bad rows alone."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from app.service.metrics import make_metrics
from app.service.recorder import Recorder, Sighting, purge_stored, store_sightings
from app.store.engine import reader
from app.store.match_events import list_unmatched, record_feedback
from app.store.tables import Feedback, MatchEvent, StoredText

SIGHTING = Sighting(
    fingerprint="d" * 64,
    excerpt="RuntimeError: CUDA out of memory",
    top_article_id="cuda-oom",
    score=0.9,
    client_kind="curl",
    lang="en",
    input_bytes=100,
    event_count=1,
    duration_ms=1.5,
    kb_revision="rev",
)


def _stored(engine: Engine) -> int:
    with Session(reader(engine)) as session:
        return session.exec(select(func.count()).select_from(MatchEvent)).one()


async def _record_while_the_writer_is_held(
    recorder: Recorder, sightings: list[Sighting]
) -> list[int | None]:
    """Queue every sighting while the writer thread is busy, so they meet as one group."""
    held = threading.Event()
    recorder._writer.submit(held.wait, 10)  # the writer is busy with something else
    pending = [asyncio.ensure_future(recorder.record(s)) for s in sightings]
    await asyncio.sleep(0.05)  # every record() has queued its sighting
    held.set()
    return list(await asyncio.gather(*pending))


def test_waiting_sightings_are_committed_as_one_group(engine: Engine) -> None:
    commits: list[int] = []
    sa.event.listen(engine, "commit", lambda _conn: commits.append(1))
    recorder = Recorder(engine, make_metrics())
    try:
        ids = asyncio.run(_record_while_the_writer_is_held(recorder, [SIGHTING] * 40))
    finally:
        recorder.close()
    assert None not in ids
    assert len(set(ids)) == 40
    assert ids == sorted(ids)  # in the order the requests queued them
    assert len(commits) == 1
    assert _stored(engine) == 40


def test_a_bad_sighting_costs_only_its_own_event(engine: Engine) -> None:
    metrics = make_metrics()
    recorder = Recorder(engine, metrics)
    bad = dataclasses.replace(SIGHTING, client_kind="telnet")  # the check constraint refuses it
    try:
        ids = asyncio.run(_record_while_the_writer_is_held(recorder, [SIGHTING, bad, SIGHTING]))
    finally:
        recorder.close()
    assert ids[1] is None
    assert ids[0] is not None
    assert ids[2] is not None
    assert _stored(engine) == 2
    assert metrics.persistence_failures._value.get() == 1


def test_f11_retention_purges_old_events_with_their_feedback_and_old_clusters(
    engine: Engine,
) -> None:
    """F11 with a frozen clock: what is older than the window goes, the rest stays."""
    now = datetime(2026, 11, 24, 12, tzinfo=UTC)
    old, recent = now - timedelta(days=200), now - timedelta(days=10)
    unknown = Sighting(
        fingerprint="f" * 64,
        excerpt="ValueError: flux",
        top_article_id=None,
        score=None,
        client_kind="curl",
        lang="en",
        input_bytes=10,
        event_count=1,
        duration_ms=1.0,
        kb_revision="r",
        unmatched_exception="ValueError",
    )
    gone, kept = store_sightings(
        engine, [(unknown, old), (replace(unknown, fingerprint="e" * 64), recent)]
    )
    with Session(engine) as session:
        record_feedback(session, match_event_id=gone, verdict="wrong")
        record_feedback(session, match_event_id=kept, verdict="wrong")
    recorder = Recorder(engine, make_metrics(), retention_days=180)
    try:
        recorder._purge_now_and_then(now)
        recorder._purge_now_and_then(now + timedelta(minutes=5))  # at most hourly: no-op
    finally:
        recorder.close()
    with Session(engine) as session:
        assert session.exec(select(MatchEvent.id)).all() == [kept]
        assert [f.match_event_id for f in session.exec(select(Feedback)).all()] == [kept]
        assert [c.fingerprint for c in list_unmatched(session)] == ["e" * 64]


def test_i7_identical_texts_are_stored_once_and_go_with_their_last_event(engine: Engine) -> None:
    """Issue 24, item 6: three events with one excerpt hold one stored text counted three times;
    the purge takes a text only once no event holds it."""
    now = datetime(2026, 11, 24, 12, tzinfo=UTC)
    old, recent = now - timedelta(days=200), now - timedelta(days=10)
    other = replace(SIGHTING, excerpt="ValueError: only in an old event")
    store_sightings(engine, [(SIGHTING, old), (SIGHTING, old), (SIGHTING, recent), (other, old)])
    with Session(engine) as session:
        texts = {t.body: t.uses for t in session.exec(select(StoredText)).all()}
        held = {e.excerpt_id for e in session.exec(select(MatchEvent)).all()}
    assert texts == {SIGHTING.excerpt: 3, other.excerpt: 1}
    assert len(held) == 2
    purged = purge_stored(engine, before=now - timedelta(days=180))
    with Session(engine) as session:
        left = [t.body for t in session.exec(select(StoredText)).all()]
    assert (purged.events, purged.texts) == (3, 1)
    assert left == [SIGHTING.excerpt]

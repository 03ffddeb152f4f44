"""Eight writer processes and four readers on one SQLite file (target F2).

Each writer process stores 500 match events and 500 feedback rows through
errkb's own engine and queries; readers count rows the whole time. WAL mode,
``busy_timeout`` and ``BEGIN IMMEDIATE`` (F1, F3) must leave no
``database is locked`` and every row present.
"""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session

from app.store import migrate
from app.store.engine import make_engine, reader
from app.store.match_events import record_feedback, record_match_event

WRITERS, READERS, ROWS = 8, 4, 500


def _writer(url: str, errors: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    engine = make_engine(url)
    try:
        for _ in range(ROWS):
            with Session(engine) as session:
                event_id = record_match_event(
                    session, fingerprint="a" * 64, excerpt="RuntimeError: x", top_article_id=None,
                    score=None, client_kind="curl", lang="en", input_bytes=1, event_count=1,
                    duration_ms=1.0, kb_revision="r",
                )  # fmt: skip
                record_feedback(session, match_event_id=event_id, verdict="fixed")
    except Exception as exc:  # reported to the test, never swallowed
        errors.put(repr(exc))
    finally:
        engine.dispose()


def _reader(url: str, stop_at: float, errors: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    engine = reader(make_engine(url))
    try:
        while time.monotonic() < stop_at:
            with engine.connect() as db:
                db.execute(sa.text("SELECT count(*) FROM match_event")).scalar_one()
    except Exception as exc:
        errors.put(repr(exc))
    finally:
        engine.dispose()


def test_f2_eight_writer_processes_and_four_readers_never_see_a_lock(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'errkb.db'}"
    migrate.upgrade(url)
    context = multiprocessing.get_context("spawn")
    errors = context.Queue()
    started = time.monotonic()
    writers = [context.Process(target=_writer, args=(url, errors)) for _ in range(WRITERS)]
    readers = [
        context.Process(target=_reader, args=(url, started + 20, errors)) for _ in range(READERS)
    ]
    for process in writers + readers:
        process.start()
    for process in writers:
        process.join(timeout=120)
    elapsed = time.monotonic() - started
    for process in readers:
        process.join(timeout=30)
    assert all(p.exitcode == 0 for p in writers + readers)
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == []
    engine = make_engine(url)
    try:
        with engine.connect() as db:
            events = db.execute(sa.text("SELECT count(*) FROM match_event")).scalar_one()
            feedback = db.execute(sa.text("SELECT count(*) FROM feedback")).scalar_one()
    finally:
        engine.dispose()
    assert (events, feedback) == (WRITERS * ROWS, WRITERS * ROWS)
    assert elapsed < 120

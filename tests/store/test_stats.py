"""``store.stats``: each article's newest hit, read from an index rather than from every event."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.store import migrate
from app.store.engine import make_engine, reader
from app.store.stats import last_hits, lifecycle_evidence
from app.store.tables import MatchEvent

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _store(engine: Engine, *events: tuple[str | None, datetime]) -> None:
    table = sa.inspect(MatchEvent).local_table
    rows = [
        {
            "created_at": when,
            "fingerprint": "c" * 64,
            "excerpt": "RuntimeError: x",
            "top_article_id": article,
            "client_kind": "api",
            "lang": "en",
            "input_bytes": 1,
            "event_count": 1,
            "duration_ms": 1.0,
            "kb_revision": "rev1",
        }
        for article, when in events
    ]
    with engine.begin() as connection:
        connection.execute(table.insert(), rows)


def test_lifecycle_evidence_has_each_articles_newest_hit_and_the_first_event(
    engine: Engine,
) -> None:
    hour = timedelta(hours=1)
    _store(
        engine,
        (None, T0 - 5 * hour),  # unmatched: counts for "since", never as a hit
        ("b", T0 + 3 * hour),
        ("a", T0),
        ("a-b", T0 + 9 * hour),  # sorts between "a" and "b": the walk must not skip it
        ("a", T0 + 2 * hour),
        ("b", T0 - hour),
        (None, T0 + 20 * hour),
    )
    with Session(reader(engine)) as session:
        evidence, since = lifecycle_evidence(session)
    assert {key: known.last_hit_at for key, known in evidence.items()} == {
        "a": T0 + 2 * hour,
        "a-b": T0 + 9 * hour,
        "b": T0 + 3 * hour,
    }
    assert since == T0 - 5 * hour


def test_no_events_means_no_hits(engine: Engine) -> None:
    with Session(reader(engine)) as session:
        assert lifecycle_evidence(session) == ({}, None)


def _vm_steps(tmp_path: Path, events: int) -> int:
    """SQLite virtual-machine steps (in hundreds) to find the newest hits among ``events``."""
    url = f"sqlite:///{tmp_path / f'steps-{events}.db'}"
    migrate.upgrade(url)
    engine = make_engine(url)
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0  # go on

    try:
        _store(engine, *((f"article-{n % 7}", T0 + timedelta(seconds=n)) for n in range(events)))
        query = str(last_hits().compile(engine, compile_kwargs={"literal_binds": True}))
        raw = engine.raw_connection()
        try:
            raw.driver_connection.set_progress_handler(count, 100)  # type: ignore[union-attr]
            raw.cursor().execute(query).fetchall()
        finally:
            raw.close()
    finally:
        engine.dispose()
    return steps


def test_the_newest_hits_cost_the_same_for_a_hundred_times_the_events(tmp_path: Path) -> None:
    """Every page asks this. A GROUP BY read every event: 0.8 s a page at a million events
    (docs/soak.md); index lookups cost the same for 300 or 30,000 events of seven articles."""
    few, many = _vm_steps(tmp_path, 300), _vm_steps(tmp_path, 30_000)
    assert few > 0
    assert many < 2 * few, (few, many)

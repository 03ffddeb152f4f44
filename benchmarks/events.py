"""What a page's lifecycle queries cost as match events pile up (``store.stats``).

Every library page, article page and ``/metrics`` scrape runs
``lifecycle_evidence``. This fills a scratch database with N synthetic match
events spread over 30 articles (and a quarter unmatched), then times, on the
same data and indexes, the shipped query (``last_hits``: a walk of the
(top_article_id, created_at) index) beside the GROUP BY it replaced. Median
of five, milliseconds.

Usage: ``python -m benchmarks.events [--events 35000 1000000] [--database sqlite|postgres]``
(PostgreSQL: ``ERRKB_TEST_POSTGRES_URL``; a database is made for the run and dropped).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session

from app.store import migrate
from app.store.engine import make_engine
from app.store.stats import last_hits, lifecycle_evidence
from app.store.tables import MatchEvent
from benchmarks.common import machine
from benchmarks.soak import database_url
from tests.conftest import POSTGRES_ENV

ARTICLES = [f"article-{n:02d}" for n in range(30)]
BATCH = 20_000


def fill(engine: sa.Engine, count: int) -> None:
    """``count`` events, 8 s apart, their top article cycling through ``ARTICLES`` or none."""
    table = sa.inspect(MatchEvent).local_table
    start = datetime.now(UTC) - timedelta(seconds=8 * count)
    choices = [*ARTICLES, *([None] * 10)]
    with engine.begin() as connection:
        connection.execute(table.delete())
        for first in range(0, count, BATCH):
            rows = [
                {
                    "created_at": start + timedelta(seconds=8 * n),
                    "fingerprint": f"f{n % 5000}",
                    "excerpt": "RuntimeError: synthetic event",
                    "top_article_id": choices[(n * 7) % len(choices)],
                    "client_kind": "api",
                    "lang": "en",
                    "input_bytes": 1000,
                    "event_count": 1,
                    "duration_ms": 3.0,
                    "kb_revision": "bench",
                }
                for n in range(first, min(count, first + BATCH))
            ]
            connection.execute(table.insert(), rows)
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(sa.text("ANALYZE match_event"))


def group_by() -> sa.Select[tuple[str, datetime]]:
    """The query ``last_hits`` replaced: reads every event that has an article."""
    events = sa.inspect(MatchEvent).local_table
    return (
        sa.select(events.c.top_article_id, sa.func.max(events.c.created_at))
        .where(events.c.top_article_id.is_not(None))
        .group_by(events.c.top_article_id)
    )


def median_ms(engine: sa.Engine, work: Callable[[Session], object]) -> float:
    taken = []
    for _ in range(6):  # the first warms the cache and is dropped
        with Session(engine) as session:
            started = time.perf_counter()
            work(session)
            taken.append(time.perf_counter() - started)
    return 1000 * statistics.median(taken[1:])


def rows_of(engine: sa.Engine, query: sa.Select[tuple[str, datetime]]) -> dict[str, datetime]:
    with engine.connect() as connection:
        return {row[0]: row[1] for row in connection.execute(query)}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--events", type=int, nargs="+", default=[35_000, 300_000, 1_000_000])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    print(f"{args.database}; {machine()}")
    print(
        "| match events | newest per article, shipped (ms) | the GROUP BY it replaced (ms) "
        "| a page's lifecycle_evidence (ms) |"
    )
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="errkb-events-") as scratch:
        postgres = os.environ.get(POSTGRES_ENV)
        with database_url(args.database, Path(scratch), postgres) as url:
            migrate.upgrade(url, "head")
            engine = make_engine(url)
            try:
                for count in args.events:
                    fill(engine, count)
                    shipped = median_ms(engine, lambda s: s.execute(last_hits()).all())
                    replaced = median_ms(engine, lambda s: s.execute(group_by()).all())
                    whole = median_ms(engine, lifecycle_evidence)
                    assert rows_of(engine, last_hits()) == rows_of(
                        engine, group_by()
                    )  # same answer
                    print(f"| {count:,} | {shipped:.2f} | {replaced:.1f} | {whole:.2f} |")
            finally:
                engine.dispose()


if __name__ == "__main__":
    main()

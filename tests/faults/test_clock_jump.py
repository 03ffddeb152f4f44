"""The wall clock steps (NTP fixing a bad clock, a VM resumed): target G7's clock drill.

errkb measures every duration on the monotonic clock, which a step of the
wall clock does not move: the rate limiter's buckets, the answer cache and
its CPU guard, the repro runner's timeouts, and the hourly schedule of the
retention purge. The wall clock only stamps rows and sets the purge's cut-off.
These tests step the wall clock back and forth under the purge, and hold
the other clocks to the monotonic one.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.http.ratelimit import RateLimiter
from app.service.metrics import make_metrics
from app.service.recorder import Recorder, Sighting, store_sightings
from app.service.runner import MatchRunner
from app.store.tables import MatchEvent

NOW = datetime(2026, 11, 24, 12, tzinfo=UTC)
UNKNOWN = Sighting(
    fingerprint="a" * 64,
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


def _stored(engine: Engine) -> list[int]:
    with Session(engine) as session:
        return [int(i) for i in session.exec(select(MatchEvent.id)).all() if i is not None]


def test_g7_a_clock_stepped_back_does_not_stop_the_retention_purge(engine: Engine) -> None:
    ticks = [0.0]
    recorder = Recorder(engine, make_metrics(), retention_days=180, clock=lambda: ticks[0])
    try:
        (first,) = store_sightings(engine, [(UNKNOWN, NOW - timedelta(days=200))])
        recorder._purge_now_and_then(NOW)
        assert first not in _stored(engine)

        stepped_back = NOW - timedelta(days=30)  # the wall clock is corrected by a month
        old = replace(UNKNOWN, fingerprint="b" * 64)
        (second,) = store_sightings(engine, [(old, stepped_back - timedelta(days=200))])
        ticks[0] += 2 * 3600  # two hours pass
        recorder._purge_now_and_then(stepped_back + timedelta(hours=2))
        assert second not in _stored(engine), "the purge waits for the wall clock to catch up"

        (third,) = store_sightings(
            engine, [(replace(UNKNOWN, fingerprint="c" * 64), NOW - timedelta(days=300))]
        )
        ticks[0] += 300  # five minutes pass, but the wall clock jumps a day ahead
        recorder._purge_now_and_then(NOW + timedelta(days=1))
        assert third in _stored(engine), "a forward step made the purge run more than hourly"
    finally:
        recorder.close()


def _default_clock(callable_: Callable[..., object]) -> object:
    return inspect.signature(callable_).parameters["clock"].default


def test_g7_limits_cache_and_purge_schedule_run_on_the_monotonic_clock() -> None:
    assert _default_clock(RateLimiter) is time.monotonic
    assert _default_clock(MatchRunner) is time.monotonic
    assert _default_clock(Recorder) is time.monotonic

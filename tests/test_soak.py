"""The short soak (target G3): ``benchmarks.soak`` for 35 s against a real ``errkb serve``.

The same code as ``make soak``, with 5 MB and 20 MB gzip logs instead of
50 MB, on SQLite and (with ``ERRKB_TEST_POSTGRES_URL``) on PostgreSQL. The
checks themselves are tested on made-up reports, so that a checker that
never complains cannot pass for a healthy server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.soak import ci_plan, full_plan, lines, medians_by_third, soak, violations

PLAN = ci_plan(35.0)


@pytest.mark.slow
def test_g3_a_short_soak_meets_the_targets(db_url: str, tmp_path: Path) -> None:
    report = soak(db_url, tmp_path, PLAN, database=db_url.split(":", 1)[0])
    text = "\n".join(lines(report))
    assert report["violations"] == [], text
    kinds = report["kinds"]
    # every stream ran for the whole run, not only at its start
    assert kinds["match"]["requests"] >= PLAN.soak_s / PLAN.match_every_s / 2, text
    assert kinds["feedback"]["statuses"].get("201", 0) >= 10, text
    assert kinds["big-5MB"]["requests"] >= 4, text
    assert kinds["healthz"]["requests"] >= PLAN.warmup_s + PLAN.soak_s - 5, text
    assert 0 < report["rss_warm_mb"] <= report["rss_peak_mb"], text
    assert len(report["rss_median_by_third_mb"]) == 3, text
    assert "RSS median by thirds of the soak" in text


def healthy_report() -> dict[str, Any]:
    row = {"requests": 10, "statuses": {"200": 10}, "p50_ms": 5.0, "p95_ms": 9.0, "p99_ms": 20.0}
    row |= {"p95_first_third_ms": 9.0, "p95_last_third_ms": 10.5}
    kinds = ("match", "match-repeat", "feedback", "healthz", "page-list", "page-article")
    kinds += ("page-search", "big-5MB", "big-20MB")
    return {
        "kinds": {kind: dict(row) for kind in kinds},
        "failures": {},
        "rss_warm_mb": 100.0,
        "rss_end_mb": 109.0,
        "fds_warm": 30.0,
        "fds_end": 33.0,
        "healthz_max_ms": 40.0,
    }


def test_the_checks_pass_a_healthy_report() -> None:
    assert violations(healthy_report(), PLAN) == []


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"failures": {"match: 500": 2}}, "2 × match: 500"),
        ({"rss_end_mb": 111.0}, "RSS grew 11%"),
        ({"healthz_max_ms": 100.0}, "/healthz took 100 ms"),
        ({"fds_end": 47.0}, "open fds grew from 30 to 47 (limit +16)"),
    ],
)
def test_the_checks_catch_a_violation(change: dict[str, Any], complaint: str) -> None:
    report = healthy_report() | change
    assert any(complaint in found for found in violations(report, full_plan(10)))


def test_the_short_run_only_catches_gross_growth() -> None:
    """35 s cannot tell the allocator settling from a leak: 26 % passes, 51 % does not."""
    assert violations(healthy_report() | {"rss_end_mb": 126.0}, PLAN) == []
    found = violations(healthy_report() | {"rss_end_mb": 151.0}, PLAN)
    assert found == ["RSS grew 51% after warm-up (limit 50%)"]


def test_the_checks_catch_a_slow_tail_and_a_silent_stream() -> None:
    report = healthy_report()
    report["kinds"]["match"]["p99_ms"] = 51.0
    report["kinds"]["big-20MB"]["statuses"] = {"503": 3}
    found = violations(report, PLAN)
    assert "match p99 51.0 ms > 10 × p50 5.0 ms" in found
    assert "big-20MB: no successful answer" in found


def test_g3_the_checks_catch_a_p95_that_drifts() -> None:
    """G3: 20 % over a 10-minute soak; the 35 s run only catches a doubling."""
    report = healthy_report()
    report["kinds"]["match"]["p95_last_third_ms"] = 11.0  # +22 %
    drift = "match p95 drifted from 9.0 ms to 11.0 ms (limit 20%)"
    assert drift in violations(report, full_plan(10))
    assert violations(report, PLAN) == []
    report["kinds"]["match"]["p95_last_third_ms"] = 18.5
    assert violations(report, PLAN) == ["match p95 drifted from 9.0 ms to 18.5 ms (limit 100%)"]


def test_rss_by_thirds_tells_a_climb_from_a_plateau() -> None:
    assert medians_by_third([100, 120, 101, 119, 120, 121, 119, 120, 120]) == [101, 120, 120]
    assert medians_by_third([100, 101, 102, 110, 111, 112, 120, 121, 122]) == [101, 111, 121]
    assert medians_by_third([100, 101]) == []

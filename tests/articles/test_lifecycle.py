"""The lifecycle rules, first that holds wins (app/articles/lifecycle.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.articles.lifecycle import Evidence, lifecycle

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)
LONG_AGO = NOW - 400 * DAY


def _state(status: str = "active", days: int = 90, **evidence: object) -> tuple[str, str]:
    life = lifecycle(status, Evidence(**evidence), now=NOW, stale_after_days=days)  # type: ignore[arg-type]
    return life.state, life.reason


@pytest.mark.parametrize(
    ("status", "evidence", "state"),
    [
        ("retired", {"latest_outcome": "verified"}, "retired"),
        ("draft", {"latest_outcome": "stale"}, "draft"),
        ("active", {"latest_outcome": "drifted", "latest_run_at": NOW - DAY}, "stale"),
        ("active", {"latest_outcome": "stale", "latest_run_at": NOW - DAY}, "stale"),
        ("active", {"latest_outcome": "verified", "latest_run_at": NOW - DAY}, "verified"),
        ("active", {"latest_outcome": "fix-broken"}, "active"),
        ("active", {}, "active"),
    ],
)
def test_author_status_then_verification_decide(
    status: str, evidence: dict[str, object], state: str
) -> None:
    assert _state(status, **evidence)[0] == state


def test_no_hits_for_the_window_makes_even_a_verified_article_stale() -> None:
    state, reason = _state(
        latest_outcome="verified", last_hit_at=NOW - 91 * DAY, counting_since=LONG_AGO
    )
    assert (state, reason) == ("stale", "no hits for 90 days")
    life = lifecycle(
        "active",
        Evidence(last_hit_at=NOW - 100 * DAY, counting_since=LONG_AGO),
        now=NOW,
        stale_after_days=90,
    )
    assert life.since == NOW - 10 * DAY
    assert life.stale_for(NOW) == 10 * DAY


def test_a_recent_hit_keeps_an_article_active() -> None:
    assert _state(last_hit_at=NOW - 89 * DAY, counting_since=LONG_AGO)[0] == "active"


def test_a_young_database_proves_nothing_about_hits() -> None:
    assert _state(counting_since=NOW - 30 * DAY)[0] == "active"
    assert _state(counting_since=None)[0] == "active"


def test_never_hit_in_an_old_database_is_stale_since_the_window_closed() -> None:
    life = lifecycle("active", Evidence(counting_since=LONG_AGO), now=NOW, stale_after_days=90)
    assert life.state == "stale"
    assert life.since == LONG_AGO + 90 * DAY


def test_zero_days_turns_the_hit_rule_off() -> None:
    assert _state(days=0, counting_since=LONG_AGO)[0] == "active"


def test_only_stale_articles_have_a_stale_age() -> None:
    life = lifecycle("active", Evidence(), now=NOW, stale_after_days=90)
    assert life.stale_for(NOW) is None

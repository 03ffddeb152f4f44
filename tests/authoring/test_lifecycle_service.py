"""Lifecycle states end to end: drafts and retired articles are not matched; the state shows
in the API, the article pages and /metrics, and follows the verifier's latest run (issue 9)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.service.kb import prepare_kb
from app.store.engine import make_engine
from app.store.verifications import record_verification
from tests.api.conftest import app_client
from tests.authoring.kbs import DRAFT_LOG, RETIRED_LOG, write_status_kb


def _client(db_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    write_status_kb(tmp_path / "kb")
    return app_client(db_url, tmp_path)


def _states(client: TestClient, **params: str) -> dict[str, str]:
    body = client.get("/api/v1/articles", params=params).json()
    return {a["id"]: a["lifecycle"]["state"] for a in body["articles"]}


def test_draft_and_retired_articles_are_not_matched(sqlite_url: str, tmp_path: Path) -> None:
    with _client(sqlite_url, tmp_path) as client:
        for log in (DRAFT_LOG, RETIRED_LOG):
            body = client.post("/api/v1/match", json={"text": log}).json()
            assert body["unknown"] is True, log
        known = client.post("/api/v1/match", json={"text": "SampleError: widget 3 exploded"})
        assert known.json()["matches"][0]["article_id"] == "sample-error"


def test_a_drafts_examples_are_self_tested_against_the_preview(tmp_path: Path) -> None:
    root = write_status_kb(tmp_path / "kb")
    prepared = prepare_kb(root)
    assert prepared.errors == ()
    assert prepared.live is not None
    (root / "examples" / "draft-error" / "sample.log").write_text("nothing to see\n")
    unfinished = prepare_kb(root)
    assert unfinished.errors == ()  # a draft never breaks the served KB
    assert [(p.message, p.severity) for p in unfinished.problems] == [
        ("example sample.log ranks nothing first, not this article", "warning")
    ]


def test_states_in_the_api_and_the_state_filter(db_url: str, tmp_path: Path) -> None:
    with _client(db_url, tmp_path) as client:
        assert _states(client) == {"sample-error": "active", "retired-error": "retired"}
        assert _states(client, state="draft") == {}  # drafts stay private (issue 21)
        assert client.get("/api/v1/articles/draft-error").status_code == 404
        one = client.get("/api/v1/articles/retired-error").json()
        assert one["status"] == "retired"
        assert one["lifecycle"]["reason"] == "retired by its authors"


def _record(
    db_url: str, run_id: str, outcome: str, day: int, environment: dict[str, object]
) -> None:
    """Store one verifier run of sample-error, started on 2026-11-<day>."""
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            record_verification(
                session,
                run_id=run_id,
                article_id="sample-error",
                content_hash="h",
                outcome=outcome,
                environment=environment,
                started_at=datetime(2026, 11, day, tzinfo=UTC),
                duration_s=1.0,
            )
    finally:
        engine.dispose()


def test_the_latest_verifier_run_decides_verified_or_stale(db_url: str, tmp_path: Path) -> None:
    with _client(db_url, tmp_path) as client:
        for run_id, outcome, day in (("r1", "verified", 1), ("r2", "drifted", 2)):
            _record(db_url, run_id, outcome, day, {"torch": "2.13.0"})
            state = client.get("/api/v1/articles/sample-error").json()["lifecycle"]
            assert state["state"] == ("verified" if outcome == "verified" else "stale")
        assert state["reason"] == "the latest verification on torch 2.13.0 says drifted"
        assert state["flag"] == "drifted"
        assert state["since"].startswith("2026-11-02")
        page = client.get("/articles/sample-error").text
        assert 'class="pill state state-stale"' in page
        assert "the latest verification on torch 2.13.0 says drifted" in page
        metrics = client.get("/metrics").text
        counts = dict(re.findall(r'errkb_articles_by_state\{state="(\w+)"\} (\S+)', metrics))
        assert counts == {
            "draft": "1.0",
            "active": "0.0",
            "verified": "0.0",
            "stale": "1.0",
            "retired": "1.0",
        }


def test_drafts_stay_private_and_chinese_pages_name_the_state(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Issue 21: a draft is in no list, no search and has no page; states read in Chinese."""
    with _client(sqlite_url, tmp_path) as client:
        for listing in (client.get("/articles").text, client.get("/articles?q=draft").text):
            assert "draft-error" not in listing
            assert "retired-error" in client.get("/articles").text
        assert client.get("/articles/draft-error").status_code == 404
        page = client.get("/articles/retired-error?lang=zh").text
        assert "状态：已退役" in page


CPU = {"python": "3.11.7", "torch": "2.13.0+cpu", "cuda": None, "gpu_count": 0, "driver": "a"}
GPU = {"python": "3.11.7", "torch": "2.13.0", "cuda": "12.8", "gpu_model": "NVIDIA H100"}


def test_the_matrix_shows_the_latest_run_per_environment(db_url: str, tmp_path: Path) -> None:
    """Issue 6: one row per environment, its newest outcome; the driver alone is no new row."""
    with _client(db_url, tmp_path) as client:
        runs = [
            ("c1", "verified", 1, CPU),
            ("g1", "verified", 2, GPU | {"gpu_count": 1}),
            ("c2", "drifted", 3, CPU | {"driver": "b"}),
        ]
        for run_id, outcome, day, environment in runs:
            _record(db_url, run_id, outcome, day, environment)
        body = client.get("/api/v1/articles/sample-error").json()
        assert [(v["run_id"], v["outcome"]) for v in body["verifications"]] == [
            ("c2", "drifted"),
            ("g1", "verified"),
        ]
        assert body["verification"]["run_id"] == "c2"
        page = client.get("/articles/sample-error").text
        assert page.count('<tr><td><span class="env">') == 2
        assert "NVIDIA H100" in page


def _flagged(metrics: str) -> dict[str, str]:
    return dict(re.findall(r'errkb_articles_flagged\{reason="(\w+)"\} (\S+)', metrics))


def test_a_drifted_environment_flags_the_article_until_it_passes_there(
    db_url: str, tmp_path: Path
) -> None:
    """Issue 6: a newer pass on another environment does not hide a drift; the API, the page
    (a badge) and /metrics (errkb_articles_flagged) say so; a pass there clears it."""
    gpu = GPU | {"gpu_count": 1}
    with _client(db_url, tmp_path) as client:
        assert _flagged(client.get("/metrics").text) == {"drifted": "0.0", "stale": "0.0"}
        _record(db_url, "g1", "drifted", 1, gpu)
        _record(db_url, "c1", "verified", 2, CPU)
        body = client.get("/api/v1/articles/sample-error").json()
        assert body["verification"]["run_id"] == "c1"
        assert body["lifecycle"]["state"] == "stale"
        assert body["lifecycle"]["flag"] == "drifted"
        assert body["lifecycle"]["reason"] == (
            "the latest verification on torch 2.13.0, CUDA 12.8, 1 x NVIDIA H100,"
            " Python 3.11 says drifted"
        )
        assert body["lifecycle"]["since"].startswith("2026-11-01")
        page = client.get("/articles/sample-error").text
        assert 'class="pill flag outcome-drifted"' in page
        assert _flagged(client.get("/metrics").text) == {"drifted": "1.0", "stale": "0.0"}

        _record(db_url, "g2", "verified", 3, gpu | {"cuda_driver": "580.1"})
        body = client.get("/api/v1/articles/sample-error").json()
        assert body["lifecycle"]["state"] == "verified"
        assert body["lifecycle"]["flag"] is None
        assert 'class="pill flag' not in client.get("/articles/sample-error").text
        assert _flagged(client.get("/metrics").text) == {"drifted": "0.0", "stale": "0.0"}

        _record(db_url, "c2", "stale", 4, CPU)
        assert _flagged(client.get("/metrics").text) == {"drifted": "0.0", "stale": "1.0"}
        listing = client.get("/api/v1/articles", params={"state": "stale"}).json()
        assert [a["id"] for a in listing["articles"]] == ["sample-error"]

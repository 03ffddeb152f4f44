"""The admin reload previews a KB change on stored events and holds back a flagged one (issue 9)."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

from tests.api.conftest import app_client
from tests.api.test_writes import bearer, mint
from tests.kbfactory import variant, write_kb


def _wait_for_hits(client: TestClient, hits: int) -> None:
    """Match events are written by the recorder thread; give it a bounded moment."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        stats = client.get("/api/v1/articles/sample-error").json()["stats"]
        if stats and stats["hits"] >= hits:
            return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {hits} stored hits after 10 s")


def test_a_change_that_takes_matches_away_is_previewed_then_held_then_forced(
    db_url: str, tmp_path: Path
) -> None:
    with app_client(db_url, tmp_path) as client:
        admin = bearer(mint(db_url, "ops", "admin"))
        for n in (1, 2, 3):
            text = f"SampleError: widget {n} exploded\n"
            assert client.post("/api/v1/match", json={"text": text}).json()["matches"]
        _wait_for_hits(client, 3)
        serving = client.get("/readyz").json()["kb_revision"]
        write_kb(
            tmp_path / "kb", variant(signatures={"error": [r"SampleError: widget 3 exploded"]})
        )

        preview = client.post("/api/v1/admin/reload", params={"dry_run": "true"}, headers=admin)
        assert preview.status_code == 200, preview.text
        body = preview.json()
        assert (body["swapped"], body["revision"]) == (False, serving)
        assert body["proposed"] not in (None, serving)
        assert body["dryrun"]["counts"]["lost"] == 2
        assert body["dryrun"]["flagged"] == ["sample-error"]

        held = client.post("/api/v1/admin/reload", headers=admin)
        assert held.status_code == 409
        error = held.json()["error"]
        assert error["code"] == "dryrun_flagged"
        assert any("FLAGGED: loses 67%" in line for line in error["details"])
        assert client.get("/readyz").json()["kb_revision"] == serving
        old = client.post("/api/v1/match", json={"text": "SampleError: widget 1 exploded"})
        assert old.json()["matches"]

        forced = client.post("/api/v1/admin/reload", params={"force": "true"}, headers=admin)
        assert forced.status_code == 200, forced.text
        assert forced.json()["swapped"] is True
        new = client.post("/api/v1/match", json={"text": "SampleError: widget 1 exploded"})
        assert new.json()["unknown"] is True

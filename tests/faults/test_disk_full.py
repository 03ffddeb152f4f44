"""The SQLite disk fills up under a running ``errkb serve`` (targets G7, issue 8).

The database lives on a tmpfs of a few MB mounted for the test (root only;
skipped with the reason elsewhere). A filler file takes the free space,
then: matches still answer (their events are counted as persistence
failures), writes answer 503 with a clear error, nothing is corrupt; once
space is back, writes resume without a restart.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from app.store.engine import make_engine
from tests.e2e.conftest import start, stop

SIZE = "8m"


@pytest.fixture
def small_disk() -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("disk-full drill: mounting a small tmpfs needs root")
    folder = Path(tempfile.mkdtemp(prefix="errkb-disk-", dir="/tmp"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(folder)],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"disk-full drill: cannot mount a tmpfs here ({mounted.stderr.strip()})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True, timeout=30, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def test_g7_a_full_disk_costs_writes_not_answers_nor_the_database(
    small_disk: Path, tmp_path: Path
) -> None:
    db_url = f"sqlite:///{small_disk / 'errkb.db'}"
    server = start(db_url, tmp_path, ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_CACHE_SECONDS="0")
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            first = client.post("/api/v1/match", json={"text": "SampleError: widget 1 exploded"})
            event_id = first.json()["match_event_id"]
            assert event_id is not None
            filler = _fill(small_disk)
            for n in range(50):  # WAL pages may absorb a few writes before the disk refuses
                text = f"ValueError: flux {n} broke " + "x" * 4000
                answer = client.post("/api/v1/match", json={"text": text})
                assert answer.status_code == 200
                if answer.json()["match_event_id"] is None:
                    break
            else:
                raise AssertionError("the full disk never refused a write")
            refused = client.post(
                "/api/v1/feedback", json={"match_event_id": event_id, "verdict": "fixed"}
            )
            assert refused.status_code == 503, refused.text
            metrics = client.get("/metrics").text
            failures = re.search(r"^errkb_persistence_failures_total (\S+)$", metrics, re.M)
            assert failures is not None
            assert float(failures.group(1)) >= 1

            filler.unlink()
            resumed = client.post(
                "/api/v1/feedback", json={"match_event_id": event_id, "verdict": "fixed"}
            )
            assert resumed.status_code == 201, resumed.text
            again = client.post("/api/v1/match", json={"text": "SampleError: widget 2 exploded"})
            assert again.json()["match_event_id"] is not None
    finally:
        stop(server)
    engine = make_engine(db_url)
    try:
        with engine.connect() as db:
            assert db.execute(sa.text("PRAGMA integrity_check")).scalar() == "ok"
    finally:
        engine.dispose()

"""The SQLite disk fills up under a running ``errkb serve`` (target G7, issue 8).

Two ways to run out of space, both run where they can:

* ``tmpfs``: the database lives on a tmpfs of a few MB mounted for the test
  (root only); a filler file takes the free space, and deleting it gives the
  space back.
* ``fsize``: the server's ``RLIMIT_FSIZE`` is lowered (``prlimit``) to the size
  its biggest database file has now, so the next write that grows a file
  fails (EFBIG; Python ignores SIGXFSZ); raising the limit gives the space
  back. Needs no root, so it runs everywhere.

Then: matches still answer (their events are counted as persistence
failures), writes answer 503 with a clear error, nothing is corrupt or
half-written and nothing acknowledged is lost (``tests/faults/ledger.py``);
once space is back, writes resume without a restart.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import start, stop
from tests.faults.ledger import Answer, Ledger, check_database

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

SIZE = "8m"
ATTEMPTS = 300  # WAL pages and the file's slack absorb some writes before one is refused


@dataclass
class FullDisk:
    """Where the database goes, and how to take its space away and give it back."""

    folder: Path
    fill: Callable[[int], None]  # server pid
    free: Callable[[int], None]


def _fill_folder(folder: Path) -> None:
    with (folder / "filler").open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass


@pytest.fixture
def tmpfs_disk() -> Iterator[FullDisk]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("disk-full drill (tmpfs): mounting a small tmpfs needs root; fsize runs")
    folder = Path(tempfile.mkdtemp(prefix="errkb-disk-", dir="/tmp"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(folder)],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"disk-full drill (tmpfs): cannot mount one here ({mounted.stderr.strip()})")
    try:
        yield FullDisk(
            folder,
            fill=lambda _pid: _fill_folder(folder),
            free=lambda _pid: (folder / "filler").unlink(),
        )
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True, timeout=30, check=False)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def fsize_disk(tmp_path: Path) -> FullDisk:
    folder = tmp_path / "db"
    folder.mkdir()

    def fill(pid: int) -> None:
        _soft, hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)
        biggest = max(path.stat().st_size for path in folder.iterdir())
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (biggest, hard))

    def free(pid: int) -> None:
        _soft, hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (hard, hard))

    return FullDisk(folder, fill, free)


@pytest.fixture(params=["tmpfs", "fsize"])
def full_disk(request: pytest.FixtureRequest) -> FullDisk:
    return request.getfixturevalue(f"{request.param}_disk")  # type: ignore[no-any-return]


def _match(client: httpx.Client, ledger: Ledger, text: str) -> tuple[int | None, str | None]:
    """Post a match: the stored event (None when refused) and the result key feedback names
    it by (None also when only its result page could not be stored)."""
    sent = time.monotonic()
    answer = client.post("/api/v1/match", json={"text": text})
    assert answer.status_code == 200, answer.text
    event_id: int | None = answer.json()["match_event_id"]
    ledger.note(Answer("match", sent, 200, time.monotonic() - sent), event_id)
    key: str | None = answer.json()["result_key"]
    return event_id, key


def _feedback(client: httpx.Client, ledger: Ledger, key: str, n: int = 0) -> httpx.Response:
    """A verdict on ``key``; one per client, so each one replaces the last (a fresh comment
    makes each one a write that needs space)."""
    sent = time.monotonic()
    body = {"result_key": key, "verdict": "fixed", "comment": f"{n} " + "y" * 1500}
    given = client.post("/api/v1/feedback", json=body)
    stored = given.json()["id"] if given.status_code in (200, 201) else None
    ledger.note(Answer("feedback", sent, given.status_code, time.monotonic() - sent), stored)
    return given


def test_g7_a_full_disk_costs_writes_not_answers_nor_the_database(
    full_disk: FullDisk, tmp_path: Path
) -> None:
    db_url = f"sqlite:///{full_disk.folder / 'errkb.db'}"
    server = start(db_url, tmp_path, ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_CACHE_SECONDS="0")
    ledger = Ledger()
    pid = server.process.pid
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            _, key = _match(client, ledger, "SampleError: widget 1 exploded")
            assert key is not None
            full_disk.fill(pid)
            for n in range(ATTEMPTS):
                if _match(client, ledger, f"ValueError: flux {n} broke " + "x" * 4000)[0] is None:
                    break
            else:
                raise AssertionError("the full disk never refused a write")
            for m in range(ATTEMPTS):  # a small row may still fit where a big event did not
                refused = _feedback(client, ledger, key, m)
                if refused.status_code not in (200, 201):
                    break
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["message"] == (
                "the database is unavailable; try again later"
            )
            metrics = client.get("/metrics").text
            failures = re.search(r"^errkb_persistence_failures_total (\S+)$", metrics, re.M)
            assert failures is not None
            assert float(failures.group(1)) >= 1

            full_disk.free(pid)
            resumed = _feedback(client, ledger, key)
            assert resumed.status_code in (200, 201), resumed.text
            assert _match(client, ledger, "SampleError: widget 2 exploded")[0] is not None
    finally:
        stop(server)
    print(f"G7 disk full: refused after {n + 1} writes of 4 KB")
    check_database(db_url, ledger, in_flight=0)

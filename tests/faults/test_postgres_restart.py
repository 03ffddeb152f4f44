"""PostgreSQL stopped and started again under a running ``errkb serve`` (targets F10, G7).

The drill needs a PostgreSQL of its own to stop: it starts a throwaway
cluster in a temporary folder with the server binaries on this machine
(``initdb`` and ``pg_ctl``, run as the ``postgres`` user because PostgreSQL
refuses root), never the shared server other tests use. While it is down,
matching keeps answering from the in-memory index, ``/healthz`` stays up,
``/readyz`` says 503, and writes fail fast with 503; once it is back, writes
resume without restarting errkb.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import free_port, start, stop

BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
KNOWN = "SampleError: widget 3 exploded\n"


def _as_postgres(*command: str) -> None:
    subprocess.run(
        ["runuser", "-u", "postgres", "--", *command],
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def private_postgres() -> Iterator[tuple[str, Path, int]]:
    """A throwaway PostgreSQL cluster: (URL, data folder, port); removed afterwards."""
    if not BINARIES or shutil.which("runuser") is None:
        pytest.skip("fault drill: no PostgreSQL server binaries (initdb, pg_ctl) on this host")
    if os.geteuid() != 0:
        pytest.skip("fault drill: runs initdb as the postgres user, which needs root")
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("fault drill: no postgres user on this host")
    folder = Path(tempfile.mkdtemp(prefix="errkb-pg-", dir="/tmp"))
    os.chown(folder, user.pw_uid, user.pw_gid)
    data, port = folder / "data", free_port()
    bin_dir = BINARIES[-1]
    _as_postgres(f"{bin_dir}/initdb", "-D", str(data), "-A", "trust", "-U", "postgres")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    ctl = (f"{bin_dir}/pg_ctl", "-D", str(data), "-o", options, "-l", str(folder / "pg.log"))
    _as_postgres(*ctl, "-w", "start")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", data, port
    finally:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", f"{bin_dir}/pg_ctl", "-D", str(data), "-m",
             "immediate", "-w", "stop"],
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def _pg_ctl(data: Path, port: int, action: str) -> None:
    bin_dir = BINARIES[-1]
    options = f"-p {port} -k {data.parent} -c listen_addresses=127.0.0.1 -c fsync=off"
    log = str(data.parent / "pg.log")
    _as_postgres(f"{bin_dir}/pg_ctl", "-D", str(data), "-o", options, "-l", log, "-m", "fast",
                 "-w", action)  # fmt: skip


def _timed(call: object) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = call()  # type: ignore[operator]
    return response, time.monotonic() - started


def test_f10_g7_postgres_restarted_under_a_running_service(
    private_postgres: tuple[str, Path, int], tmp_path: Path
) -> None:
    url, data, port = private_postgres
    server = start(url, tmp_path, ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_CACHE_SECONDS="0")
    figures: dict[str, float] = {}
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            first = client.post("/api/v1/match", json={"text": KNOWN}).json()
            assert first["matches"]

            _pg_ctl(data, port, "stop")
            answer, figures["match_s"] = _timed(
                lambda: client.post("/api/v1/match", json={"text": KNOWN})
            )
            assert answer.status_code == 200
            assert answer.json()["matches"][0]["article_id"] == "sample-error"
            health, figures["healthz_s"] = _timed(lambda: client.get("/healthz"))
            assert health.status_code == 200
            ready, figures["readyz_s"] = _timed(lambda: client.get("/readyz"))
            assert ready.status_code == 503
            event_id = first["match_event_id"]
            assert event_id is not None
            write, figures["write_s"] = _timed(
                lambda: client.post(
                    "/api/v1/feedback", json={"match_event_id": event_id, "verdict": "fixed"}
                )
            )
            assert write.status_code == 503
            assert figures["write_s"] < 5

            _pg_ctl(data, port, "start")
            deadline = time.monotonic() + 30
            while client.get("/readyz").status_code != 200:
                assert time.monotonic() < deadline, "errkb never saw PostgreSQL come back"
                time.sleep(0.2)
            resumed = client.post(
                "/api/v1/feedback", json={"match_event_id": event_id, "verdict": "fixed"}
            )
            assert resumed.status_code == 201, resumed.text
    finally:
        stop(server)
    print("F10 figures:", {k: round(v, 3) for k, v in figures.items()})

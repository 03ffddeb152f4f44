"""PostgreSQL stopped and started again under load on ``errkb serve`` (targets F10, G7).

The drill needs a PostgreSQL of its own to stop: it starts a throwaway
cluster in a temporary folder with the server binaries on this machine
(``initdb`` and ``pg_ctl``, run as the ``postgres`` user because PostgreSQL
refuses root), never the shared server other tests use. While it is down,
matching keeps answering from the in-memory index, ``/healthz`` stays up,
``/readyz`` says 503, and writes fail fast with 503; once it is back, writes
resume without restarting errkb. Two clients post matches and feedback
the whole time; afterwards the database holds exactly what was acknowledged
(``tests/faults/ledger.py``): nothing half-written, nothing acknowledged lost.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import free_port, start, stop
from tests.faults.ledger import Ledger, check_database, drive

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
CLIENTS = 2
LOAD_S = 1.5


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


def _metric(client: httpx.Client, name: str) -> float:
    found = re.search(rf"^{name} (\S+)$", client.get("/metrics").text, re.M)
    assert found is not None, name
    return float(found.group(1))


def _wait_for(client: httpx.Client, path: str, status: int, within_s: float) -> float:
    """Seconds until ``path`` answers ``status``; fails after ``within_s``."""
    started = time.monotonic()
    while client.get(path).status_code != status:
        assert time.monotonic() - started < within_s, f"{path} never answered {status}"
        time.sleep(0.1)
    return time.monotonic() - started


def test_f10_g7_postgres_restarted_under_a_running_service(
    private_postgres: tuple[str, Path, int], tmp_path: Path
) -> None:
    url, data, port = private_postgres
    server = start(url, tmp_path, ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_CACHE_SECONDS="0")
    ledger = Ledger()
    clients = [
        threading.Thread(target=drive, args=(server.url, ledger, time.monotonic() + 40, 10_000 * n))
        for n in range(CLIENTS)
    ]
    figures: dict[str, float] = {}
    try:
        with httpx.Client(base_url=server.url, timeout=10) as probe:
            for client in clients:
                client.start()
            time.sleep(LOAD_S)
            failures_before = _metric(probe, "errkb_persistence_failures_total")

            _pg_ctl(data, port, "stop")
            stopped = time.monotonic()
            figures["not_ready_s"] = _wait_for(probe, "/readyz", 503, within_s=5)
            health = probe.get("/healthz")
            assert health.status_code == 200
            figures["healthz_s"] = health.elapsed.total_seconds()
            time.sleep(LOAD_S)
            assert _metric(probe, "errkb_persistence_failures_total") > failures_before

            _pg_ctl(data, port, "start")
            restarted = time.monotonic()
            figures["ready_again_s"] = _wait_for(probe, "/readyz", 200, within_s=10)
            time.sleep(LOAD_S)
            resumed_from = time.monotonic()
            time.sleep(LOAD_S)
    finally:
        stop(server)
        for client in clients:
            client.join(timeout=20)
    assert not any(client.is_alive() for client in clients)

    assert {a.status for a in ledger.of("match")} == {200}, "a match failed with the database"
    down = ledger.of("match", since=stopped, until=restarted)
    assert down, "no match was sent while PostgreSQL was down"
    figures["match_down_max_s"] = max(a.seconds for a in down)
    refused = [a for a in ledger.of("feedback") if a.status == 503]
    assert refused, "no write was refused while PostgreSQL was down"
    figures["write_refused_max_s"] = max(a.seconds for a in refused)
    assert figures["write_refused_max_s"] < 5, "writes did not fail fast"
    assert {a.status for a in ledger.of("feedback")} <= {200, 201, 503}  # 200: a verdict replaced
    assert {a.status for a in ledger.of("feedback", since=resumed_from)} <= {200, 201}
    assert ledger.of("match", since=resumed_from), "no traffic after the restart"
    check_database(url, ledger, in_flight=CLIENTS)
    print("F10 figures:", {k: round(v, 3) for k, v in figures.items()})

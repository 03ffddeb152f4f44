"""Fault drills on a real ``errkb serve`` (targets F9 and G7): SIGKILL during writes.

Two clients post matches and feedback as fast as they can while the server
is killed with SIGKILL. Whatever the database holds afterwards must be whole
(``tests/faults/ledger.py``): SQLite's integrity check passes, every
unmatched cluster's count equals the unmatched events stored (events and
counts commit in one transaction), every feedback row points at a stored
event, every event and feedback id the service acknowledged is there, and at
most the requests in flight at the kill were stored unacknowledged. The
restarted server is ready within the bound and stores again. On SQLite and on
PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import start, stop
from tests.faults.ledger import Ledger, check_database, drive, stored_ids

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

KILL_AFTER_S = 1.5  # at least: writes in full flow when the kill comes
KILL_AFTER_EVENTS = 12  # and no sooner than this many acknowledged events (a loaded box is slow)
KILL_WITHIN_S = 15
CLIENTS = 2
READY_WITHIN_S = 15  # the target is 5 s; CI's two shared cores load the KB and migrate slower


def test_f9_g7_sigkill_during_writes_leaves_a_consistent_database(
    db_url: str, tmp_path: Path
) -> None:
    env = {"ERRKB_RATE_LIMIT_PER_MINUTE": "0", "ERRKB_CACHE_SECONDS": "0"}
    server = start(db_url, tmp_path, **env)
    ledger = Ledger()
    stop_at = time.monotonic() + 30
    clients = [
        threading.Thread(target=drive, args=(server.url, ledger, stop_at, 10_000 * n))
        for n in range(CLIENTS)
    ]
    try:
        for client in clients:
            client.start()
        time.sleep(KILL_AFTER_S)
        deadline = time.monotonic() + KILL_WITHIN_S
        while len(ledger.events) < KILL_AFTER_EVENTS and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=10)
        for client in clients:
            client.join(timeout=30)
    finally:
        stop(server)
    assert not any(client.is_alive() for client in clients)
    answers = ledger.of("match") + ledger.of("feedback")
    assert len(ledger.events) > 10, "the drill stored too little to prove anything"
    assert {a.status for a in answers} <= {200, 201}
    events, _ = check_database(db_url, ledger, in_flight=CLIENTS)

    started = time.monotonic()
    again = start(db_url, tmp_path, **env)
    try:
        ready_s = time.monotonic() - started
        answer = httpx.post(
            again.url + "/api/v1/match", json={"text": "ValueError: flux 1 capacitor broke\n"}
        )
        assert answer.status_code == 200
        assert answer.json()["match_event_id"] not in events
        assert answer.json()["match_event_id"] in stored_ids(db_url)[0]
    finally:
        stop(again)
    print(f"F9: {len(ledger.events)} events acknowledged before the kill; ready in {ready_s:.1f} s")
    assert ready_s < READY_WITHIN_S, f"restart took {ready_s:.1f} s"

"""Fault drills on a real ``errkb serve`` (targets F9 and G7): SIGKILL during writes.

Matches and feedback are posted as fast as one client can while the server
is killed with SIGKILL. Whatever the database holds afterwards must be whole:
SQLite's integrity check passes, every unmatched cluster's count equals the
unmatched match events stored (events and counts commit in one transaction),
every feedback row points at a stored event, and the restarted server answers
and stores again. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
import sqlalchemy as sa

from app.store.engine import make_engine
from tests.e2e.conftest import Server, start, stop

KILL_AFTER_S = 1.5
MAX_REQUESTS = 2000


def _traffic(server: Server, stop_at: float, sent: list[int]) -> None:
    """Unknown and known tracebacks and feedback, bounded in count and time."""
    with httpx.Client(base_url=server.url, timeout=5) as client:
        for n in range(MAX_REQUESTS):
            if time.monotonic() > stop_at:
                return
            text = (
                f"ValueError: flux {n % 7} capacitor broke\n"
                if n % 2
                else f"SampleError: widget {n} exploded\n"
            )
            try:
                answer = client.post("/api/v1/match", json={"text": text})
                event_id = answer.json().get("match_event_id")
                if event_id:
                    client.post(
                        "/api/v1/feedback", json={"match_event_id": event_id, "verdict": "fixed"}
                    )
                sent.append(answer.status_code)
            except (httpx.HTTPError, ValueError):
                return  # the server is gone


def _consistent(db_url: str) -> dict[str, int]:
    engine = make_engine(db_url)
    try:
        with engine.connect() as db:
            if engine.dialect.name == "sqlite":
                assert db.execute(sa.text("PRAGMA integrity_check")).scalar() == "ok"
            events = db.execute(sa.text("SELECT count(*) FROM match_event")).scalar_one()
            unmatched = db.execute(
                sa.text(
                    "SELECT count(*) FROM match_event "
                    "WHERE top_article_id IS NULL AND event_count > 0"
                )
            ).scalar_one()
            counted = db.execute(
                sa.text("SELECT coalesce(sum(count), 0) FROM unmatched_cluster")
            ).scalar_one()
            orphans = db.execute(
                sa.text(
                    "SELECT count(*) FROM feedback f LEFT JOIN match_event e "
                    "ON e.id = f.match_event_id WHERE e.id IS NULL"
                )
            ).scalar_one()
    finally:
        engine.dispose()
    assert counted == unmatched, "an event and its cluster count were not committed together"
    assert orphans == 0
    return {"events": int(events), "unmatched": int(unmatched)}


def test_f9_g7_sigkill_during_writes_leaves_a_consistent_database(
    db_url: str, tmp_path: Path
) -> None:
    env = {"ERRKB_RATE_LIMIT_PER_MINUTE": "0", "ERRKB_CACHE_SECONDS": "0"}
    server = start(db_url, tmp_path, **env)
    sent: list[int] = []
    try:
        worker = threading.Thread(target=_traffic, args=(server, time.monotonic() + 30, sent))
        worker.start()
        time.sleep(KILL_AFTER_S)
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=10)
        worker.join(timeout=30)
    finally:
        stop(server)
    assert not worker.is_alive()
    assert len(sent) > 10, "the drill sent too little to prove anything"
    assert set(sent) == {200}
    before = _consistent(db_url)
    assert 0 < before["events"] <= len(sent) + 1  # the request in flight may be stored

    started = time.monotonic()
    again = start(db_url, tmp_path, **env)
    try:
        ready_s = time.monotonic() - started
        answer = httpx.post(
            again.url + "/api/v1/match", json={"text": "ValueError: flux 1 capacitor broke\n"}
        )
        assert answer.status_code == 200
        deadline = time.monotonic() + 10
        while _consistent(db_url)["events"] == before["events"]:
            assert time.monotonic() < deadline, "the restarted server stores nothing"
            time.sleep(0.1)
    finally:
        stop(again)
    assert ready_s < 15, f"restart took {ready_s:.1f} s"

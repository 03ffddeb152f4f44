"""Traffic for the fault drills and the invariants the database must keep afterwards.

The traffic posts matches (known and unknown tracebacks) and feedback on the
events it got back, bounded in count and time, and writes down every answer:
which event and feedback ids the service acknowledged, and how long each
request took. ``check_database`` then holds the stored rows to that ledger:
nothing half-written (SQLite integrity, each unmatched cluster's count equal
to its stored events, no feedback without its event) and nothing
acknowledged lost.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import httpx
import sqlalchemy as sa

from app.store.engine import make_engine

MAX_REQUESTS = 2000


@dataclass(frozen=True)
class Answer:
    """One request as the client saw it."""

    kind: str  # "match" or "feedback"
    sent_at: float  # time.monotonic() when it was sent
    status: int
    seconds: float


@dataclass
class Ledger:
    """Every answer of the drill's traffic; shared by its client threads."""

    answers: list[Answer] = field(default_factory=list)
    events: set[int] = field(default_factory=set)
    feedback: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, answer: Answer, stored_id: int | None = None) -> None:
        with self.lock:
            self.answers.append(answer)
            if stored_id is not None:
                (self.events if answer.kind == "match" else self.feedback).add(stored_id)

    def of(self, kind: str, since: float = 0.0, until: float = float("inf")) -> list[Answer]:
        with self.lock:
            return [a for a in self.answers if a.kind == kind and since <= a.sent_at < until]


def _post(client: httpx.Client, path: str, body: dict[str, object]) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = client.post(path, json=body)
    return response, started


def drive(url: str, ledger: Ledger, stop_at: float, seed: int = 0) -> None:
    """Matches and feedback until ``stop_at`` or the server is gone (bounded in count).

    Feedback goes to the event just stored, or to the last one stored when the
    database refused this one, so writes keep coming while it is down.
    """
    last_key: str | None = None
    with httpx.Client(base_url=url, timeout=10) as client:
        for n in range(seed, seed + MAX_REQUESTS):
            if time.monotonic() > stop_at:
                return
            text = (
                f"ValueError: flux {n % 7} capacitor broke\n"
                if n % 2
                else f"SampleError: widget {n} exploded\n"
            )
            try:
                answer, sent = _post(client, "/api/v1/match", {"text": text})
                ok = answer.status_code == 200
                event_id = answer.json().get("match_event_id") if ok else None
                took = time.monotonic() - sent
                ledger.note(Answer("match", sent, answer.status_code, took), event_id)
                last_key = (answer.json().get("result_key") if ok else None) or last_key
                if last_key is None:
                    continue
                body = {"result_key": last_key, "verdict": "fixed"}
                given, sent = _post(client, "/api/v1/feedback", body)
                took = time.monotonic() - sent
                # one verdict per client: a repeat replaces the row (200, same id)
                stored = given.json()["id"] if given.status_code in (200, 201) else None
                ledger.note(Answer("feedback", sent, given.status_code, took), stored)
            except (httpx.HTTPError, ValueError):
                return  # the server is gone


def stored_ids(db_url: str) -> tuple[set[int], set[int]]:
    """Ids of the stored match events and feedback rows."""
    engine = make_engine(db_url)
    try:
        with engine.connect() as db:
            events = set(db.execute(sa.text("SELECT id FROM match_event")).scalars())
            feedback = set(db.execute(sa.text("SELECT id FROM feedback")).scalars())
    finally:
        engine.dispose()
    return events, feedback


def check_database(db_url: str, ledger: Ledger, in_flight: int) -> tuple[set[int], set[int]]:
    """The invariants after a fault; ``in_flight`` bounds the stored but unacknowledged rows."""
    engine = make_engine(db_url)
    try:
        with engine.connect() as db:
            if engine.dialect.name == "sqlite":
                assert db.execute(sa.text("PRAGMA integrity_check")).scalar() == "ok"
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
    assert orphans == 0, "feedback rows without their match event"
    events, feedback = stored_ids(db_url)
    assert ledger.events <= events, f"acknowledged events lost: {ledger.events - events}"
    assert ledger.feedback <= feedback, f"acknowledged feedback lost: {ledger.feedback - feedback}"
    assert len(events - ledger.events) <= in_flight, "events stored that nobody was told of"
    assert len(feedback - ledger.feedback) <= in_flight, "feedback stored that nobody was told of"
    return events, feedback

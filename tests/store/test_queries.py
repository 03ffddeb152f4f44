"""Every query on both engines: idempotent inserts, counting upserts, hashed tokens."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from app.errors import InputError, StoreError
from app.store import api_tokens, match_events, verifications
from app.store.engine import reader
from app.store.environments import environment_key, environment_label
from app.store.tables import Feedback, MatchEvent, StoreModel, VerificationRun

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _event(session: Session, **overrides: Any) -> int:
    values: dict[str, Any] = {
        "fingerprint": "a" * 64,
        "excerpt": "RuntimeError: CUDA out of memory",
        "top_article_id": "cuda-oom",
        "score": 0.93,
        "client_kind": "curl",
        "lang": "en",
        "input_bytes": 1234,
        "event_count": 1,
        "duration_ms": 12.5,
        "kb_revision": "rev1",
    }
    return match_events.record_match_event(session, **(values | overrides))


def _count(engine: Engine, table: type[Any]) -> int:
    with Session(reader(engine)) as session:
        return session.exec(select(func.count()).select_from(table)).one()


def test_match_event_with_a_repeated_key_is_stored_once(engine: Engine) -> None:
    with Session(engine) as session:
        first = _event(session, idempotency_key="k-1")
        assert _event(session, idempotency_key="k-1") == first
        assert _event(session) != _event(session)  # no key: every call is an event
    assert _count(engine, MatchEvent) == 3
    with Session(engine) as session:
        stored = session.get(MatchEvent, first)
        assert stored is not None
        assert stored.created_at.tzinfo is not None
        assert stored.created_at.utcoffset() == timedelta(0)


def test_a_group_of_match_events_is_one_transaction_with_ids_in_order(engine: Engine) -> None:
    base = {
        "fingerprint": "b" * 64,
        "excerpt": "ValueError: flux out of range",
        "top_article_id": None,
        "score": None,
        "client_kind": "api",
        "lang": "en",
        "input_bytes": 10,
        "event_count": 1,
        "duration_ms": 1.0,
        "kb_revision": "rev1",
        "created_at": T0,
    }
    unmatched = {"fingerprint": "b" * 64, "exception": "ValueError", "sample": "s", "seen_at": T0}
    group = [
        base | {"idempotency_key": "g-1", "unmatched": unmatched},
        base | {"unmatched": unmatched},
        base | {"idempotency_key": "g-1", "unmatched": unmatched},  # a retry inside the group
    ]
    with Session(engine) as session:
        ids = match_events.record_match_events(session, group)
    assert ids[0] == ids[2] != ids[1]
    assert _count(engine, MatchEvent) == 2
    with Session(reader(engine)) as session:
        (cluster,) = match_events.list_unmatched(session)
    assert cluster.count == 3  # every sighting counts, as one by one would


def test_a_failing_group_stores_nothing(engine: Engine) -> None:
    with Session(engine) as session:
        good = {"fingerprint": "c" * 64, "excerpt": "e", "top_article_id": None, "score": None}
        good |= {"lang": "en", "input_bytes": 1, "event_count": 0, "duration_ms": 0.1}
        good |= {"kb_revision": "r", "client_kind": "api"}
        with pytest.raises(StoreError):
            match_events.record_match_events(session, [good, good | {"client_kind": "telnet"}])
        assert match_events.record_match_events(session, [good]) != []
    assert _count(engine, MatchEvent) == 1


def test_a_bad_value_is_a_store_error_and_the_session_survives(engine: Engine) -> None:
    with Session(engine) as session:
        with pytest.raises(StoreError):
            _event(session, client_kind="telnet")
        assert _event(session) > 0


def test_feedback_is_deleted_with_its_event(engine: Engine) -> None:
    with Session(engine) as session:
        event_id = _event(session)
        match_events.record_feedback(session, match_event_id=event_id, verdict="fixed")
        match_events.record_feedback(
            session, match_event_id=event_id, verdict="wrong", comment="nope"
        )
        with pytest.raises(InputError):
            match_events.record_feedback(session, match_event_id=event_id + 99, verdict="fixed")
    assert _count(engine, Feedback) == 2
    with engine.begin() as conn:
        conn.execute(sa.delete(MatchEvent).where(col(MatchEvent.id) == event_id))
    assert _count(engine, Feedback) == 0


def test_unmatched_sightings_are_counted(engine: Engine) -> None:
    with Session(engine) as session:
        for minutes in (0, 10, 5):  # the late sighting at +5 must not move last_seen back
            count = match_events.upsert_unmatched(
                session,
                fingerprint="f" * 64,
                exception="NcclError",
                sample=f"sample {minutes}",
                seen_at=T0 + timedelta(minutes=minutes),
            )
        assert count == 3
        match_events.upsert_unmatched(
            session, fingerprint="g" * 64, exception="E", sample="s", seen_at=T0
        )
        top, other = match_events.list_unmatched(session, limit=10)
    assert (top.count, other.count) == (3, 1)
    assert (top.first_seen, top.last_seen) == (T0, T0 + timedelta(minutes=10))
    assert top.sample == "sample 0"
    with Session(engine) as session:
        assert [c.count for c in match_events.list_unmatched(session, limit=1, offset=1)] == [1]


def _run(**overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "run_id": "run-1",
        "article_id": "cuda-oom",
        "content_hash": "c" * 64,
        "outcome": "verified",
        "environment": {"python": "3.11.9", "gpus": ("H100",)},
        "started_at": datetime(2026, 3, 1, 20, 0, tzinfo=timezone(timedelta(hours=8))),
        "duration_s": 41.25,
        "detail": None,
    }
    return values | overrides


def test_verification_runs_are_idempotent_by_run_id(engine: Engine) -> None:
    with Session(engine) as session:
        first = verifications.record_verification(session, **_run())
        again = verifications.record_verification(session, **_run())
        clash = verifications.record_verification(session, **_run(outcome="stale"))
    assert (first.status, first.is_new) == ("created", True)
    assert (again.status, again.is_new) == ("duplicate", False)
    assert clash.status == "conflict"
    assert first.run.id == again.run.id == clash.run.id
    assert clash.run.outcome == "verified"
    assert first.run.started_at == T0
    assert first.run.started_at.tzinfo is not None
    assert _count(engine, VerificationRun) == 1


def test_verifications_need_aware_times_and_come_newest_first(engine: Engine) -> None:
    with Session(engine) as session:
        with pytest.raises(ValueError, match="timezone"):
            verifications.record_verification(session, **_run(started_at=datetime(2026, 3, 1)))
        for hours in (1, 3, 2):
            verifications.record_verification(
                session, **_run(run_id=f"r{hours}", started_at=T0 + timedelta(hours=hours))
            )
        verifications.record_verification(
            session, **_run(run_id="other", article_id="nccl-timeout")
        )
        runs = verifications.latest_verifications(session, article_id="cuda-oom", limit=2)
    assert [r.run_id for r in runs] == ["r3", "r2"]


CPU_ENV = {"python": "3.11.7", "torch": "2.13.0+cpu", "cuda": None, "gpu_count": 0}
H100_ENV = {"python": "3.11.7", "torch": "2.13.0", "cuda": "12.8", "gpu_model": "NVIDIA H100"}


def test_the_latest_run_per_environment_comes_from_one_query(engine: Engine) -> None:
    """Issue 6: one row per environment, its newest run; a patch release of Python, another
    driver or platform is the same environment; another GPU count or package is not."""
    runs = [
        ("cpu-1", "verified", 1, CPU_ENV),
        ("h100x1-1", "verified", 2, H100_ENV | {"gpu_count": 1}),
        ("cpu-2", "drifted", 3, CPU_ENV | {"python": "3.11.9", "platform": "Linux-aarch64"}),
        ("h100x2-1", "fix-broken", 4, H100_ENV | {"gpu_count": 2, "cuda_driver": "580"}),
        ("h100x1-0", "stale", 0, H100_ENV | {"gpu_count": 1}),  # older, stored later
        ("cpu-tf", "verified", 2, CPU_ENV | {"packages": {"transformers": "5.23.0"}}),
    ]
    with Session(engine) as session:
        for run_id, outcome, hours, environment in runs:
            started = T0 + timedelta(hours=hours)
            verifications.record_verification(
                session,
                **_run(run_id=run_id, outcome=outcome, environment=environment, started_at=started),
            )
        verifications.record_verification(
            session, **_run(run_id="elsewhere", article_id="nccl-timeout")
        )
    with Session(reader(engine)) as session:
        latest = verifications.latest_per_environment(session, article_id="cuda-oom")
        assert verifications.latest_per_environment(session, article_id="no-such-article") == []
    assert [(r.run_id, r.outcome) for r in latest] == [
        ("h100x2-1", "fix-broken"),
        ("cpu-2", "drifted"),
        ("cpu-tf", "verified"),
        ("h100x1-1", "verified"),
    ]
    assert [r.environment_key for r in latest] == [environment_key(r.environment) for r in latest]
    assert len({r.environment_key for r in latest}) == 4


def test_environment_keys_ignore_what_cannot_change_a_verdict() -> None:
    assert environment_key(CPU_ENV) == environment_key(CPU_ENV | {"python": "3.11.12"})
    assert environment_key(CPU_ENV) == environment_key(CPU_ENV | {"executor": "ray"})
    assert environment_key(CPU_ENV) == environment_key({**CPU_ENV, "gpu_count": None})
    assert environment_key(CPU_ENV) != environment_key(CPU_ENV | {"python": "3.12.1"})
    assert environment_key(CPU_ENV) != environment_key(CPU_ENV | {"torch": "2.12.1+cpu"})
    assert len(environment_key(None)) == 64
    assert environment_label(H100_ENV | {"gpu_count": 8}) == (
        "torch 2.13.0, CUDA 12.8, 8 x NVIDIA H100, Python 3.11"
    )
    assert environment_label(CPU_ENV) == "torch 2.13.0+cpu, CPU, Python 3.11"
    assert environment_label({}) == "an unrecorded environment"


def test_tokens_are_found_by_plaintext_until_revoked(engine: Engine) -> None:
    with Session(engine) as session:
        plaintext, row = api_tokens.create_token(session, name="worker-1", scopes="verify admin")
        assert plaintext.startswith("errkb_verify_")
        assert row.scopes == "verify admin"
        found = api_tokens.find_token(session, plaintext=plaintext)
        assert found is not None
        assert found.id == row.id
        assert found.last_used_at is not None
        assert api_tokens.find_token(session, plaintext=plaintext + "x") is None
        with pytest.raises(InputError):
            api_tokens.create_token(session, name="worker-1", scopes=["verify"])
        with pytest.raises(InputError):
            api_tokens.create_token(session, name="worker-2", scopes="Verify_all")
        assert api_tokens.revoke_token(session, name="worker-1") is True
        assert api_tokens.revoke_token(session, name="worker-1") is False
        assert api_tokens.find_token(session, plaintext=plaintext) is None
        [listed] = api_tokens.list_tokens(session)
    assert listed.revoked_at is not None


def _dump(engine: Engine) -> str:
    """Every row of every table, as text."""
    with engine.connect() as conn:
        rows = [conn.execute(sa.select(t)).all() for t in StoreModel.metadata.sorted_tables]
    return repr(rows)


def test_only_the_token_hash_is_stored(engine: Engine, tmp_path: Path) -> None:
    with Session(engine) as session:
        plaintext, row = api_tokens.create_token(session, name="ci", scopes=["verify"])
    secret = plaintext.removeprefix("errkb_verify_")
    dump = _dump(engine)
    assert row.token_hash in dump
    assert plaintext not in dump
    assert secret not in dump
    engine.dispose()  # flush SQLite's WAL into the file before reading its bytes
    for path in tmp_path.glob("errkb.db*"):
        assert secret.encode() not in path.read_bytes(), path.name


def test_concurrent_upserts_lose_no_count(engine: Engine) -> None:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with Session(engine) as session:
                for _ in range(50):
                    match_events.upsert_unmatched(
                        session, fingerprint="h" * 64, exception="E", sample="s", seen_at=T0
                    )
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with Session(engine) as session:
        [cluster] = match_events.list_unmatched(session)
    assert cluster.count == 200


def test_the_first_web_view_of_an_event_wins(engine: Engine) -> None:
    """A cached answer pasted twice keeps one permalink (match_event.view_key)."""
    with Session(engine) as session:
        event_id = _event(session)
        first = match_events.attach_view(
            session, match_event_id=event_id, view={"n": 1}, key="key-one-1"
        )
        second = match_events.attach_view(
            session, match_event_id=event_id, view={"n": 2}, key="key-two-2"
        )
        missing = match_events.attach_view(
            session, match_event_id=event_id + 99, view={}, key="key-none"
        )
    assert (first, second, missing) == ("key-one-1", "key-one-1", None)
    with Session(reader(engine)) as session:
        assert match_events.stored_view(session, match_event_id=event_id) == (
            "key-one-1",
            {"n": 1},
        )

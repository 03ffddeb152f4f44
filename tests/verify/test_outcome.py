"""outcome.classify: six outcomes, each with a reason; infrastructure stops are errors."""

from __future__ import annotations

import json
import signal
from datetime import UTC, datetime

import pytest

from app.verify.model import FIXED
from app.verify.outcome import Verdict, Verification, classify, detail_of
from tests.verify.jobs import result, script

ME = "sample-error"
FIXED_OK = script(FIXED, 0, "ok")

CASES = [
    # (name, result, ranked first, outcome, reason contains)
    ("verified", result(script(), FIXED_OK), ME, "verified", "fixed.py exits 0"),
    ("stale", result(script(exit_code=0)), None, "stale", "no longer reproduces"),
    ("drifted", result(script(), FIXED_OK), "other", "drifted", "errkb ranks other first"),
    ("drifted-nothing", result(script()), None, "drifted", "ranks no article first"),
    ("fix-broken", result(script(), script(FIXED, 2)), ME, "fix-broken", "fixed.py exited 2"),
    (
        "fix-killed",
        result(script(), script(FIXED, None, signal=signal.SIGSEGV)),
        ME,
        "fix-broken",
        "killed by signal 11",
    ),
    ("unverifiable", result(unrunnable="needs 2 GPU(s)"), None, "unverifiable", "needs 2 GPU"),
    ("error-executor", result(failure="ray: lost"), None, "error", "ray: lost"),
    ("error-timeout", result(script(timed_out=True)), None, "error", "timeout: repro.py"),
    ("error-memory", result(script(limit="memory")), None, "error", "memory: repro.py"),
    ("error-runner", result(script(failure="cannot start")), None, "error", "runner: cannot"),
    ("error-no-repro", result(), None, "error", "no repro.py result"),
    ("error-no-fixed", result(script()), ME, "error", "no fixed.py result"),
    (
        "error-fixed-timeout",
        result(script(), script(FIXED, None, timed_out=True)),
        ME,
        "error",
        "timeout: fixed.py",
    ),
]


@pytest.mark.parametrize(
    ("run", "first", "outcome", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_classify(run, first, outcome, reason) -> None:  # type: ignore[no-untyped-def]
    verdict = classify(ME, run, first)
    assert verdict.outcome == outcome
    assert reason in verdict.reason


def test_a_memory_stop_errkb_recognises_is_judged_on_the_fix() -> None:
    """An article about a host OOM still verifies when errkb recognises the output."""
    run = result(script(limit="memory"), FIXED_OK)
    assert classify(ME, run, ME).outcome == "verified"


def test_a_timeout_is_an_error_even_when_recognised() -> None:
    assert classify(ME, result(script(timed_out=True)), ME).outcome == "error"


def test_detail_carries_the_repro_output_tail_when_not_verified() -> None:
    run = result(script(output="x" * 10_000 + "\nRuntimeError: boom"))
    detail = detail_of(Verdict("drifted", "because"), run)
    assert detail.startswith("because\n--- repro.py output (last 4000 characters) ---\n")
    assert detail.endswith("RuntimeError: boom")
    assert detail_of(Verdict("verified", "fine"), run) == "fine"


def test_a_broken_fix_is_explained_by_the_fixed_scripts_output() -> None:
    run = result(script(output="SampleError"), script(FIXED, 1, "terminate called"))
    verdict = classify(ME, run, ME)
    assert verdict.script == FIXED
    assert detail_of(verdict, run).endswith(
        "--- fixed.py output (last 16 characters) ---\nterminate called"
    )


def verification(**fields: object) -> Verification:
    values: dict[str, object] = {
        "run_id": "a" * 32,
        "article_id": ME,
        "content_hash": "0" * 64,
        "outcome": "verified",
        "environment": {"python": "3.11.7", "packages": {"torch": "2.13.0+cpu"}},
        "started_at": datetime(2026, 11, 22, 1, 2, 3, tzinfo=UTC),
        "duration_s": 12.5,
        "detail": "fine",
        "reason": "fine",
    }
    values.update(fields)
    return Verification(**values)  # type: ignore[arg-type]


def test_a_bundle_line_round_trips() -> None:
    original = verification()
    line = json.dumps(original.to_json())
    assert Verification.from_json(json.loads(line)) == original


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("outcome", "great"),
        ("started_at", "2026-11-22T01:02:03"),
        ("run_id", "../../etc"),
        ("environment", [1, 2]),
        ("duration_s", "slow"),
    ],
)
def test_a_malformed_bundle_line_is_refused(field: str, value: object) -> None:
    data = {**verification().to_json(), field: value}
    with pytest.raises((ValueError, TypeError)):
        Verification.from_json(data)

"""Executors behind one protocol (fake: a function; local: a FIFO scheduler) and the verifier."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from app.errors import InputError
from app.service.kb import LiveKb, prepare_valid_kb
from app.verify.executors.fake import FakeExecutor
from app.verify.executors.local import LocalExecutor, Slots
from app.verify.model import FIXED, REPRO, Job, Resources, RunResult
from app.verify.verifier import build_job, plan_for, verify
from tests.kbfactory import VALID_ARTICLE, write_kb
from tests.verify.jobs import SAMPLE_ERROR, config, job, result, script


def variant_article(article_id: str, **requires: object) -> dict[str, object]:
    """Another article with its own signature, so the sample's output ranks only the sample."""
    return {
        **VALID_ARTICLE,
        "id": article_id,
        "signatures": {"error": [r"GpuError: card \d+ melted"]},
        "repro": {"requires": {"gpus": 0, "processes": 1, **requires}},
    }


@pytest.fixture
def live(tmp_path: Path) -> LiveKb:
    sample = {**VALID_ARTICLE, "repro": {"requires": {"packages": ["pytest>=1"]}}}
    root = write_kb(tmp_path / "kb", sample, variant_article("needs-gpus", gpus=4))
    return prepare_valid_kb(root, self_tests=False)


def test_the_fake_runs_the_whole_verifier_against_a_function(live: LiveKb) -> None:
    seen: list[Job] = []

    def handler(j: Job) -> RunResult:
        seen.append(j)
        return result(script(output=SAMPLE_ERROR), script(FIXED, 0))

    executor = FakeExecutor(handler)
    runs = verify(live, plan_for(live, [], executor), executor)
    assert [(v.article_id, v.outcome) for v in runs] == [
        ("needs-gpus", "unverifiable"),
        ("sample-error", "verified"),
    ]
    assert [j.article_id for j in seen] == ["sample-error"]
    assert dict(seen[0].files)[REPRO].startswith(b"raise SystemExit")
    assert runs[0].content_hash != runs[1].content_hash


def test_the_repro_output_is_matched_with_errkbs_own_matcher(live: LiveKb) -> None:
    executor = FakeExecutor(lambda j: result(script(output="KeyError: 'something else'")))
    [run] = verify(live, plan_for(live, ["sample-error"], executor), executor)
    assert run.outcome == "drifted"
    assert run.reason == "repro.py exited 1, but errkb ranks no article first"
    assert run.detail
    assert run.detail.endswith("KeyError: 'something else'")


def test_an_executor_that_raises_is_an_error_for_that_article_only(live: LiveKb) -> None:
    def handler(j: Job) -> RunResult:
        raise RuntimeError("cluster gone")

    executor = FakeExecutor(handler)
    [run] = verify(live, plan_for(live, ["sample-error"], executor), executor)
    assert (run.outcome, run.reason) == ("error", "executor: RuntimeError: cluster gone")


def test_unknown_ids_are_a_usage_error(live: LiveKb) -> None:
    with pytest.raises(InputError, match="unknown article 'nope'"):
        plan_for(live, ["nope"], FakeExecutor(lambda j: result()))


def test_the_content_hash_is_the_article_files_sha256(live: LiveKb) -> None:
    import hashlib

    planned = plan_for(live, ["sample-error"], FakeExecutor(lambda j: result())).runs[0]
    path = live.kb.root / "articles" / "sample-error.yaml"
    assert build_job(live, planned).content_hash == hashlib.sha256(path.read_bytes()).hexdigest()


def test_local_verifies_a_real_script_end_to_end(live: LiveKb) -> None:
    executor = LocalExecutor(config(), cpus=2, gpu_ids=[])
    [run] = verify(live, plan_for(live, ["sample-error"], executor), executor)
    assert run.outcome == "verified", run.detail
    assert run.environment["executor"] == "local"
    assert run.environment["sandbox"]["file_size_limit"] > 0  # type: ignore[index]


def test_e10_local_refuses_an_infeasible_job_at_once() -> None:
    """E10: a job no host can take comes back unverifiable within 5 s, never pending."""
    executor = LocalExecutor(config(), cpus=2, gpu_ids=[])
    started = time.monotonic()
    report = executor.run(job("raise SystemExit(1)", gpus=8))
    assert time.monotonic() - started < 5
    assert report.unrunnable == "needs 8 GPU(s) on one host; the most any host offers is 0"


def test_local_resources_come_from_the_detected_gpus() -> None:
    executor = LocalExecutor(config(), cpus=3, gpu_ids=["0", "1"])
    assert executor.resources == Resources.single(cpus=3, gpus=2)


def test_slots_hand_out_distinct_gpus_and_bound_concurrency() -> None:
    slots = Slots(2, ["0", "1", "2"])
    running: list[list[str]] = []
    peak = 0
    lock = threading.Lock()

    def work(gpus: int) -> None:
        nonlocal peak
        with slots.take(gpus) as given:
            with lock:
                running.append(given)
                peak = max(peak, len(running))
                taken = [g for r in running for g in r]
                assert len(taken) == len(set(taken))  # no GPU handed out twice
            time.sleep(0.05)
            with lock:
                running.remove(given)

    threads = [threading.Thread(target=work, args=(n % 3,)) for n in range(9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert peak == 2


def test_slots_are_fifo_so_a_big_gpu_job_is_not_starved() -> None:
    slots = Slots(4, ["0", "1"])
    order: list[str] = []
    first = slots.take(1)
    first.__enter__()
    big = threading.Thread(target=lambda: _take(slots, 2, "big", order))
    big.start()
    time.sleep(0.1)
    small = threading.Thread(target=lambda: _take(slots, 1, "small", order))
    small.start()
    time.sleep(0.1)
    assert order == []  # the small job waits behind the big one, though a GPU is free
    first.__exit__(None, None, None)
    big.join(5)
    small.join(5)
    assert order == ["big", "small"]


def _take(slots: Slots, gpus: int, name: str, order: list[str]) -> None:
    with slots.take(gpus):
        order.append(name)


def test_the_fake_is_closed_by_its_owner() -> None:
    executor = FakeExecutor(lambda j: result())
    executor.close()
    assert executor.closed

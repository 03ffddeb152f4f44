"""The Ray executor against a real local Ray instance (one per module: it takes seconds to start).

The instance declares one GPU that does not exist: enough for Ray to schedule
GPU tasks (it sets ``CUDA_VISIBLE_DEVICES``) and to show that each gets a
fresh worker process (E12); the scripts never touch a GPU.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.kb import prepare_valid_kb
from app.verify.executors.ray import RayExecutor, cluster_resources, task_options
from app.verify.model import Host, Resources
from app.verify.verifier import plan_for, verify
from tests.kbfactory import VALID_ARTICLE, write_kb
from tests.verify.jobs import config, job

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow  # Ray 2.60 emits no warning here: nothing to filter


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture
def executor(cluster: None) -> Iterator[RayExecutor]:
    chosen = RayExecutor(config())
    yield chosen
    chosen.close()


def test_the_cluster_is_seen_node_by_node(executor: RayExecutor) -> None:
    assert executor.resources == Resources((Host(cpus=2, gpus=1),))
    assert cluster_resources(ray) == executor.resources


def test_a_cpu_article_verifies_through_a_ray_task(executor: RayExecutor, tmp_path: Path) -> None:
    sample = {**VALID_ARTICLE, "repro": {"requires": {"packages": ["pytest>=1"]}}}
    live = prepare_valid_kb(write_kb(tmp_path / "kb", sample), self_tests=False)
    [run] = verify(live, plan_for(live, [], executor), executor)
    assert run.outcome == "verified", run.detail
    assert run.environment["executor"] == "ray"


def test_e10_an_infeasible_job_is_unverifiable_at_once(executor: RayExecutor) -> None:
    """E10: 8 GPUs (or 16 ranks) on a 2-CPU, 1-GPU cluster: answered within 5 s, never pending."""
    started = time.monotonic()
    too_many_gpus = executor.run(job("raise SystemExit(1)", gpus=8))
    too_many_ranks = executor.run(job("raise SystemExit(1)", processes=16, launcher="torchrun"))
    assert time.monotonic() - started < 5
    assert too_many_gpus.unrunnable
    assert "needs 8 GPU(s)" in too_many_gpus.unrunnable
    assert too_many_ranks.unrunnable
    assert "needs 16 CPU(s)" in too_many_ranks.unrunnable


def test_e12_every_gpu_task_gets_a_fresh_worker_process(executor: RayExecutor) -> None:
    """E12: max_calls=1 for GPU tasks; the GPU Ray assigned reaches the script."""
    source = (
        "import os; print(os.getppid(), os.environ['CUDA_VISIBLE_DEVICES']); raise SystemExit(1)"
    )
    seen = []
    for _ in range(2):
        report = executor.run(job(source, gpus=1))
        repro = report.script("repro.py")
        assert repro is not None, report
        worker, devices = repro.output.split()
        seen.append(int(worker))
        assert devices == "0"
    assert seen[0] != seen[1]
    assert os.getpid() not in seen


def test_e11_a_task_whose_worker_dies_is_run_again_and_reported_once(
    executor: RayExecutor, tmp_path: Path
) -> None:
    """E11: the first attempt kills its own Ray worker (SIGKILL); Ray re-runs the task
    (max_retries) and the driver gets one report, from the attempt that finished."""
    marker = tmp_path / "first-attempt"
    source = f"""
        import os, pathlib, signal
        marker = pathlib.Path({str(marker)!r})
        if not marker.exists():
            marker.write_text(str(os.getppid()))
            os.kill(os.getppid(), signal.SIGKILL)
        print("worker", os.getppid())
        raise SystemExit("SampleError: widget 3 exploded")
    """
    started = time.monotonic()
    report = executor.run(job(source))
    assert time.monotonic() - started < 60
    repro = report.script("repro.py")
    assert repro is not None, report
    assert "SampleError: widget 3 exploded" in repro.output
    killed = int(marker.read_text())
    survivor = int(repro.output.split("worker", 1)[1].split()[0])
    assert survivor != killed  # the report comes from a second worker process
    with pytest.raises(ProcessLookupError):
        os.kill(killed, 0)


def test_task_options_follow_the_requirements() -> None:
    assert task_options(job("", processes=2, gpus=1)) == {"num_cpus": 2, "num_gpus": 1}
    assert task_options(job("")) == {"num_cpus": 1, "num_gpus": 0}


def test_close_leaves_a_cluster_it_did_not_start(executor: RayExecutor) -> None:
    executor.close()
    assert ray.is_initialized()

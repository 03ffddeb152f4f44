"""The Ray executor against a real local Ray instance (one per module: it takes seconds to start).

The instance declares one GPU that does not exist: enough for Ray to schedule
GPU tasks (it sets ``CUDA_VISIBLE_DEVICES``) and to show that each gets a
fresh worker process (E12); the scripts never touch a GPU. E9 and E11 post
to a real ``errkb serve`` (tests/e2e/conftest.py) and count the stored rows.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from app.service.kb import prepare_valid_kb
from app.store.api_tokens import create_token
from app.store.engine import make_engine, reader
from app.store.tables import VerificationRun
from app.verify.executors.ray import RayExecutor, cluster_resources, task_options
from app.verify.model import Host, Resources
from app.verify.post import ENDPOINT, post
from app.verify.verifier import plan_for, verify
from tests.e2e.conftest import Server, start, stop
from tests.kbfactory import VALID_ARTICLE, write_kb
from tests.verify.jobs import config, job
from tests.verify.test_outcome import verification

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


def test_a_second_package_set_is_honoured_on_a_ray_worker(
    executor: RayExecutor, tmp_path: Path
) -> None:
    """repro.fixed_requires: fixed.py runs with the job's second interpreter on the worker, and
    a set the worker's one interpreter cannot meet is unverifiable (never run in the wrong one)."""
    second = tmp_path / "fixed-env"
    venv.create(second, with_pip=False, symlinks=True)
    shows = "import sys; print('python=' + sys.executable)"
    two = replace(
        job(f"{shows}; raise SystemExit(1)", shows),
        fixed_packages=(),
        fixed_python=str(second / "bin" / "python"),
    )
    ran = executor.run(two)
    fixed = ran.script("fixed.py")
    assert fixed is not None, ran
    assert f"python={second / 'bin' / 'python'}" in fixed.output
    assert ran.environment["fixed"]["packages"] == {"torch": None}  # type: ignore[index]
    unmet = executor.run(replace(job("raise SystemExit(1)"), fixed_packages=("no-such-errkb>=1",)))
    assert unmet.scripts == ()
    assert unmet.unrunnable is not None
    assert "repro.fixed_requires.packages" in unmet.unrunnable


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


@dataclass
class Service:
    """A real ``errkb serve`` on the test's database, and a token that may post runs."""

    server: Server
    engine: Engine
    token: str

    def stored(self, article_id: str = "sample-error") -> list[VerificationRun]:
        with Session(reader(self.engine)) as session:
            query = select(VerificationRun).where(VerificationRun.article_id == article_id)
            return list(session.exec(query))

    def count(self) -> int:
        with Session(reader(self.engine)) as session:
            return session.exec(select(func.count(col(VerificationRun.id)))).one()


@pytest.fixture
def service(db_url: str, tmp_path: Path) -> Iterator[Service]:
    folder = tmp_path / "service"
    folder.mkdir()
    server = start(db_url, folder, ERRKB_RATE_LIMIT_PER_MINUTE="0")  # serve migrates the database
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            token, _ = create_token(session, name="ray-worker", scopes="verify")
        yield Service(server, engine, token)
    finally:
        engine.dispose()
        stop(server)


def _kb_whose_repro_kills_its_first_worker(root: Path, marker: Path) -> Path:
    sample = {**VALID_ARTICLE, "repro": {"requires": {"packages": ["pytest>=1"]}}}
    kb = write_kb(root, sample)
    (kb / "repros" / "sample-error" / "repro.py").write_text(
        "import os, pathlib, signal\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "if not marker.exists():\n"
        "    marker.write_text(str(os.getppid()))\n"
        "    os.kill(os.getppid(), signal.SIGKILL)\n"
        "raise SystemExit('SampleError: widget 3 exploded')\n"
    )
    return kb


def test_e11_a_run_whose_worker_dies_is_run_again_and_stored_once(
    executor: RayExecutor, service: Service, tmp_path: Path
) -> None:
    """E11 end to end: the first attempt's worker dies (SIGKILL from its repro: errkb's task
    body runs no article code, so the death comes from the child); Ray re-runs the task,
    ``verify`` returns one run, the driver posts it (and again, as a retry would): one row."""
    marker = tmp_path / "first-attempt"
    live = prepare_valid_kb(_kb_whose_repro_kills_its_first_worker(tmp_path / "kb", marker))
    started = time.monotonic()
    runs = verify(live, plan_for(live, [], executor), executor)
    assert time.monotonic() - started < 60
    assert marker.exists()  # the first attempt ran, and its worker is gone
    with pytest.raises(ProcessLookupError):
        os.kill(int(marker.read_text()), 0)
    [run] = runs
    assert run.outcome == "verified", run.detail
    first = post(runs, service.server.url, service.token)
    again = post(runs, service.server.url, service.token)
    assert (first.created, first.duplicates, again.created, again.duplicates) == (1, 0, 0, 1)
    [stored] = service.stored()
    assert (stored.run_id, stored.outcome) == (run.run_id, "verified")
    article = httpx.get(f"{service.server.url}/api/v1/articles/sample-error", timeout=10).json()
    assert [v["run_id"] for v in article["verifications"]] == [run.run_id]


SEND_AND_HANG = """
import socket, sys, time
host, port, token, body = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].encode()
head = (f"POST {ENDPOINT} HTTP/1.1\\r\\nHost: {host}\\r\\nAuthorization: Bearer {token}\\r\\n"
        f"Content-Type: application/json\\r\\nContent-Length: {len(body)}\\r\\n\\r\\n")
sock = socket.create_connection((host, port))
sock.sendall(head.encode() + body)
time.sleep(120)  # never reads the answer: killed first
"""


def _post_then_die(service: Service, body: str) -> None:
    """A first attempt that sends its run, then is killed (SIGKILL) before it reads the answer."""
    host, port = service.server.url.removeprefix("http://").split(":")
    script = SEND_AND_HANG.replace("{ENDPOINT}", ENDPOINT)
    sender = subprocess.Popen([sys.executable, "-c", script, host, port, service.token, body])
    try:
        deadline = time.monotonic() + 20
        while service.count() == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        sender.send_signal(signal.SIGKILL)
        sender.wait(timeout=10)
    assert sender.returncode == -signal.SIGKILL


def test_e9_a_late_post_from_a_killed_attempt_never_adds_a_result(service: Service) -> None:
    """E9, what holds without a lease table: attempt 1 posts its run and is killed before it
    hears back; the retry (same run_id) gets 200 and the stored body; attempt 1's late
    copies get the same 200 when byte-identical and 422 when they differ; one row throughout."""
    run = verification(run_id="e9" * 16)
    body = json.dumps(run.to_json())
    _post_then_die(service, body)
    assert service.count() == 1
    url = service.server.url + ENDPOINT
    headers = {"Authorization": f"Bearer {service.token}", "Content-Type": "application/json"}
    retry = httpx.post(url, content=body, headers=headers, timeout=10)
    assert retry.status_code == 200, retry.text
    assert retry.json()["run_id"] == run.run_id
    late = httpx.post(url, content=body, headers=headers, timeout=10)
    assert (late.status_code, late.json()) == (200, retry.json())
    partial = json.dumps(replace(run, outcome="error", detail="killed").to_json())
    clash = httpx.post(url, content=partial, headers=headers, timeout=10)
    assert clash.status_code == 422, clash.text
    [stored] = service.stored()
    assert (stored.run_id, stored.outcome) == (run.run_id, "verified")


def test_task_options_follow_the_requirements() -> None:
    assert task_options(job("", processes=2, gpus=1)) == {"num_cpus": 2, "num_gpus": 1}
    assert task_options(job("")) == {"num_cpus": 1, "num_gpus": 0}


def test_close_leaves_a_cluster_it_did_not_start(executor: RayExecutor) -> None:
    executor.close()
    assert ray.is_initialized()

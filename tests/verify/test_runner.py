"""The runner's reliability targets, against real processes (section E of the research).

Every script here runs with errkb's own interpreter; every test checks that no
process carrying its run's ``ERRKB_RUN_ID`` is left behind.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from app.verify import sandbox
from app.verify.model import FIXED, REPRO, Limits, ScriptResult
from app.verify.runner import run_job, run_script
from tests.matching.secrets import AWS_ID, AWS_SECRET, HF
from tests.verify.jobs import FAST, config, job

NETWORK = sandbox.detect().unshare is not None
PIDS_CGROUP = sandbox.detect().pids_cgroup


def run(source: str, limits: Limits = FAST, **job_fields: object) -> tuple[ScriptResult, str]:
    """Run ``source`` as repro.py; assert nothing of it survives; return result and run id."""
    the_job = job(source, **job_fields)  # type: ignore[arg-type]
    gpu_ids = ["0"] if the_job.gpus else []
    result = run_script(REPRO, the_job, config(limits), gpu_ids)
    assert sandbox.tagged(the_job.run_id) == []
    return result, the_job.run_id


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_script_runs_in_a_fresh_directory_and_its_exit_code_is_kept() -> None:
    result, _ = run("import os, sys; print(os.getcwd()); sys.exit(3)")
    assert result.exit_code == 3
    assert not result.succeeded
    workdir = Path(result.output.split()[0])
    assert workdir.name.startswith("errkb-sample-error-")
    assert not workdir.exists()


def test_e1_timeout_kills_and_reports_within_the_bound() -> None:
    """E1: sleep(1e6) with timeout 2 s is an error(timeout) after at most 12 s."""
    started = time.monotonic()
    result, _ = run("import time; time.sleep(1e6)", timeout_s=2)
    assert result.timed_out
    assert time.monotonic() - started <= 12


ESCAPEES = """
import multiprocessing, os, subprocess, sys, time

def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            print("escapee", os.getpid(), flush=True)
            time.sleep(1000)
        os._exit(0)

if __name__ == "__main__":
    subprocess.Popen(["bash", "-c", "sleep 1000 & echo escapee $!"])
    pool = multiprocessing.Pool(2)
    pool.map_async(time.sleep, [1000, 1000])
    for child in multiprocessing.active_children():
        print("escapee", child.pid, flush=True)
    daemon()
    time.sleep(1.5)
    os._exit(1)
"""


@pytest.mark.parametrize("cgroup", [True, False], ids=["cgroup", "env-tag-only"])
def test_e2_background_pool_and_double_forked_children_are_all_killed(
    cgroup: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """E2: group kill, pids cgroup and the ERRKB_RUN_ID scan leave nothing behind."""
    if cgroup and not PIDS_CGROUP:
        pytest.skip("no writable cgroup v1 pids hierarchy on this host")
    if not cgroup:
        without = replace(sandbox.detect(), pids_cgroup=False)
        monkeypatch.setattr(sandbox, "detect", lambda: without)
    result, _ = run(ESCAPEES)
    pids = [
        int(line.split()[1]) for line in result.output.splitlines() if line.startswith("escapee")
    ]
    assert len(pids) == 4, result.output
    assert result.exit_code == 1
    assert result.leftovers >= 4
    time.sleep(0.2)
    assert all(gone(pid) for pid in pids)


def test_e3_a_script_ignoring_sigint_and_sigterm_is_killed_after_the_graces() -> None:
    """E3: SIGKILL after the default graces; total at most timeout + 8 s."""
    source = """
        import signal, time
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("stubborn", flush=True)
        time.sleep(1e6)
    """
    started = time.monotonic()
    result, _ = run(source, Limits(), timeout_s=2)
    assert result.timed_out
    assert result.signal == signal.SIGKILL
    assert "stubborn" in result.output
    assert time.monotonic() - started <= 2 + 8


def test_e4_memory_limit_stops_a_cpu_run_and_the_oom_score_is_raised() -> None:
    """E4 (2 GiB against 512 MiB): MemoryError, reported as the memory limit, within 5 s."""
    source = """
        print("oom_score_adj", open("/proc/self/oom_score_adj").read().strip(), flush=True)
        blob = bytearray(2 << 30)
    """
    started = time.monotonic()
    result, _ = run(source, replace(FAST, memory_bytes=512 << 20))
    assert time.monotonic() - started <= 5
    assert result.limit == "memory"
    assert "MemoryError" in result.output
    assert "oom_score_adj 1000" in result.output


def test_e5_output_is_capped_and_a_huge_file_is_stopped() -> None:
    """E5 (64 MiB printed, 64 MiB file, caps 1 + 1 MiB and 8 MiB): bounded, stopped, cleaned."""
    source = """
        import os, sys
        print("workdir", os.getcwd(), flush=True)
        for _ in range(64):
            sys.stdout.buffer.write(b"y" * (1 << 20))
        sys.stdout.flush()
        with open("big.bin", "wb") as out:
            for _ in range(64):
                out.write(b"z" * (1 << 20))
                out.flush()
    """
    limits = replace(FAST, output_head=1 << 20, output_tail=1 << 20, file_bytes=8 << 20)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result, _ = run(source, limits)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert result.limit == "file-size"  # Python ignores SIGXFSZ: the write fails with EFBIG
    assert "File too large" in result.output
    assert result.output_bytes >= 64 << 20
    assert len(result.output) <= (2 << 20) + 100
    assert "[truncated " in result.output
    assert grown_kib < 100 * 1024
    assert not Path(result.output.split()[1]).exists()


@pytest.mark.skipif(not NETWORK, reason="unshare -n does not work here: the network stays on")
def test_e6_the_network_is_off_but_loopback_works() -> None:
    """E6: outside connections and DNS fail fast (ENETUNREACH); torchrun's loopback works."""
    source = """
        import socket
        try:
            socket.create_connection(("1.1.1.1", 80), 1)
            print("connect: ok")
        except OSError as exc:
            print("connect:", exc.errno)
        try:
            socket.getaddrinfo("pypi.org", 443)
            print("dns: ok")
        except OSError:
            print("dns: failed")
        server = socket.create_server(("127.0.0.1", 0))
        socket.create_connection(server.getsockname(), 1).close()
        print("loopback: ok")
    """
    started = time.monotonic()
    result, _ = run(source)
    assert "connect: 101" in result.output
    assert "dns: failed" in result.output
    assert "loopback: ok" in result.output
    assert time.monotonic() - started < 10


SECRETS = {
    "HF_TOKEN": HF,
    "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
    "AWS_ACCESS_KEY_ID": AWS_ID,
    "WANDB_API_KEY": "0" * 40,
    "GITHUB_TOKEN": "t",
    "ERRKB_DATABASE_URL": "postgresql://u:p@db/errkb",
    "PYTHONPATH": "/elsewhere",
}


def test_e7_the_environment_is_an_allowlist_with_a_temporary_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """E7: no ERRKB_* but the tag, no *_TOKEN, AWS_*, HF_TOKEN, WANDB_API_KEY; HOME = cwd."""
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "C.UTF-8")
    source = """
        import json, os
        print(json.dumps({"names": sorted(os.environ), "home": os.environ["HOME"],
                          "cwd": os.getcwd(), "cuda": os.environ["CUDA_VISIBLE_DEVICES"]}))
    """
    result, _run_id = run(source)
    seen = json.loads(result.output)
    names = set(seen["names"])
    assert not names & set(SECRETS)
    assert [n for n in names if n.startswith("ERRKB_")] == ["ERRKB_RUN_ID"]
    assert not [n for n in names if n.endswith("_TOKEN") or n.startswith("AWS_")]
    assert {"PATH", "LANG", "HOME"} <= names
    assert seen["home"] == seen["cwd"]
    assert seen["cuda"] == ""  # a CPU run sees no GPU


@pytest.mark.skipif(not PIDS_CGROUP, reason="no writable cgroup v1 pids hierarchy on this host")
def test_e8_a_fork_bomb_stops_at_the_cgroup_limit_and_the_worker_survives() -> None:
    """E8: pids.max = 64 contains it; as root RLIMIT_NPROC would not (root ignores it)."""
    source = """
        import os, sys, time
        forked = 0
        while True:
            try:
                pid = os.fork()
            except OSError as exc:
                print("forked", forked, "then errno", exc.errno, flush=True)
                sys.exit(3)
            if pid == 0:
                time.sleep(1000)
                os._exit(0)
            forked += 1
    """
    result, _ = run(source, replace(FAST, tasks=64))
    forked = int(result.output.split()[1])
    assert 0 < forked < 64
    assert result.exit_code == 3
    assert result.leftovers >= forked
    assert subprocess.run(["true"], check=False).returncode == 0


def test_e13_gpu_runs_get_no_address_space_limit() -> None:
    """E13: RLIMIT_AS would break CUDA initialisation; a GPU run gets none, a CPU run does."""
    source = """
        import os, resource
        print(resource.getrlimit(resource.RLIMIT_AS)[0], os.environ["CUDA_VISIBLE_DEVICES"])
    """
    gpu, _ = run(source, gpus=1)
    cpu, _ = run(source)
    assert gpu.output.split() == [str(resource.RLIM_INFINITY), "0"]
    assert cpu.output.split()[0] == str(FAST.memory_bytes)


def test_e14_secrets_printed_by_a_repro_are_redacted() -> None:
    """E14: the stored output passes through redaction (a hostile print(os.environ))."""
    source = f"""
        print("HF_TOKEN={HF}")
        print("aws_access_key_id = {AWS_ID}")
        print("aws_secret_access_key = {AWS_SECRET}")
        raise SystemExit(1)
    """
    result, _ = run(source)
    for secret in (HF, AWS_ID, AWS_SECRET):
        assert secret not in result.output
    assert "HF_TOKEN=" in result.output


def test_run_job_probes_the_environment_and_skips_fixed_when_the_repro_passes() -> None:
    stale = job("print('fine now')", packages=("pytest>=1",))
    report = run_job(stale, config(), [], "local")
    assert [s.name for s in report.scripts] == [REPRO]
    env = report.environment
    packages = env["packages"]
    assert isinstance(packages, dict)
    assert packages["pytest"]
    assert "torch" in packages
    assert env["python"]
    assert env["torch"] is None
    assert env["gpu_count"] == 0
    assert env["executor"] == "local"
    failing = run_job(job("raise SystemExit(1)"), config(), [], "local")
    assert [s.name for s in failing.scripts] == [REPRO, FIXED]


def test_a_missing_package_makes_the_run_unverifiable_before_any_script() -> None:
    report = run_job(
        job("raise SystemExit(1)", packages=("no-such-pkg-errkb>=1",)), config(), [], "x"
    )
    assert report.scripts == ()
    assert report.unrunnable is not None
    assert "no-such-pkg-errkb is not installed" in report.unrunnable


def test_a_missing_interpreter_is_an_infrastructure_failure() -> None:
    broken = replace(config(), python="/nonexistent/bin/python")
    report = run_job(job("raise SystemExit(1)"), broken, [], "local")
    assert report.failure is not None
    assert report.failure.startswith("environment probe:")


def test_a_failing_bootstrap_is_a_runner_failure(tmp_path: Path) -> None:
    """A cgroup we cannot join means the script never ran: not a repro failure."""
    the_job = job("print('never')")
    limits = FAST
    command = sandbox.wrap(
        ["/bin/true"],
        python=config().python,
        limits=limits,
        gpu_run=False,
        cgroup=tmp_path / "missing",
    )
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 125
    assert "errkb-bootstrap: FileNotFoundError" in done.stderr
    assert the_job.run_id not in os.environ.get("ERRKB_RUN_ID", "")

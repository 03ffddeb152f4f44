"""Run one job's scripts on this host, confined and bounded; never leave a process behind.

Each script gets a fresh temporary directory (its cwd and ``HOME``), a new
session, an allowlisted environment tagged ``ERRKB_RUN_ID`` (E7), the limits
of ``sandbox.wrap`` (E4, E5, E6, E8, E13) and a timeout with a staged kill:
SIGINT, then SIGTERM, then SIGKILL to the whole process group, as the GitHub
Actions runner does (E1, E3). When the script ends, for whatever reason, every
process still carrying its tag or sitting in its cgroup is killed (E2). The
combined stdout and stderr are kept as head + tail (E5) and redacted before
they leave this module (E14).

``run_job`` is what every executor calls on the worker: probe the environment
under test, check ``requires.packages``, run repro.py, and fixed.py when the
repro failed. It reports facts; ``outcome.classify`` judges them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from app.matching.redact import redact
from app.verify import environment, sandbox
from app.verify.bootstrap import FAILED as BOOTSTRAP_FAILED
from app.verify.bootstrap import MARKER as BOOTSTRAP_MARKER
from app.verify.capture import Drain, HeadTail
from app.verify.model import (
    FIXED,
    REPRO,
    Environment,
    Job,
    Limits,
    RunnerConfig,
    RunResult,
    ScriptResult,
)

MEMORY_MARKERS = (
    "MemoryError",
    "std::bad_alloc",
    "can't allocate memory",
    "Cannot allocate memory",
)
FILE_SIZE_MARKERS = ("File too large", "SIGXFSZ")
DRAIN_WAIT_S = 5.0
KILL_WAIT_S = 30.0
UNSHARE_FAILED = "unshare: failed to execute"


FIXED_UNMET = "fixed.py's environment does not meet repro.fixed_requires.packages"
RECORDED = ("python", "torch", "cuda", "packages")  # of fixed.py's own environment


def run_job(job: Job, config: RunnerConfig, gpu_ids: Sequence[str], executor: str) -> RunResult:
    """Probe, check the packages, run repro.py and (when it failed) fixed.py.

    A job with its own set for fixed.py (``fixed_packages``) probes and checks
    that environment too before anything runs, records it as the
    environment's ``fixed``, and runs fixed.py there.
    """
    started, clock = datetime.now(UTC), time.monotonic()
    if job.python is not None:  # errkb's environment of the job's package set
        config = replace(config, python=job.python, bytecode=True)
    fixed_config = config
    if job.fixed_python is not None:  # errkb's environment of fixed.py's own set
        fixed_config = replace(config, python=job.fixed_python, bytecode=True)
    sandboxed = sandbox.detect().describe(config.limits, gpu_run=job.gpus > 0)
    env: Environment = {"executor": executor, "sandbox": sandboxed}
    scripts: tuple[ScriptResult, ...] = ()
    unrunnable = failure = None
    try:
        report = _probe(job, config, job.packages)
    except environment.ProbeFailed as exc:
        failure = f"environment probe: {exc}"
    else:
        gpus = [g for g in environment.detect_gpus() if g.index in gpu_ids]
        env = {**environment.describe(report, gpus, executor), **env}
        unrunnable = environment.unmet(job.packages, _versions(report))
        if unrunnable is None and job.fixed_packages is not None:
            try:
                fixed_report = _probe(job, fixed_config, job.fixed_packages)
            except environment.ProbeFailed as exc:
                failure = f"environment probe (fixed.py): {exc}"
            else:
                env["fixed"] = {key: fixed_report.get(key) for key in RECORDED}
                versions = _versions(fixed_report)
                unrunnable = environment.unmet(job.fixed_packages, versions, FIXED_UNMET)
        if unrunnable is None and failure is None:
            scripts = _run_scripts(job, config, fixed_config, gpu_ids)
    duration = time.monotonic() - clock
    return RunResult(
        job.run_id, job.article_id, started, duration, env, scripts, unrunnable, failure
    )


def _versions(report: dict[str, object]) -> dict[str, str | None]:
    versions = report.get("packages")
    return versions if isinstance(versions, dict) else {}


def _run_scripts(
    job: Job, config: RunnerConfig, fixed_config: RunnerConfig, gpu_ids: Sequence[str]
) -> tuple[ScriptResult, ...]:
    repro = run_script(REPRO, job, config, gpu_ids)
    if not _fixed_tells_something(repro):
        return (repro,)
    return repro, run_script(FIXED, job, fixed_config, gpu_ids)


def _probe(job: Job, config: RunnerConfig, packages: Sequence[str]) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="errkb-probe-") as home:
        env = sandbox.environment(
            home=Path(home), run_id=job.run_id, python=config.python, gpu_ids=(), isolated=False
        )
        return environment.probe(config.python, packages, env, config.limits.probe_timeout_s)


def _fixed_tells_something(repro: ScriptResult) -> bool:
    """fixed.py matters only when the repro failed on its own (not stale, not killed)."""
    return not repro.succeeded and not repro.timed_out and repro.failure is None


def command_for(job: Job, script: str, python: str) -> list[str]:
    """``python script`` or ``python -m torch.distributed.run --standalone ...`` (the env's own)."""
    if job.launcher == "torchrun":
        ranks = f"--nproc-per-node={job.processes}"
        return [python, "-m", "torch.distributed.run", "--standalone", ranks, script]
    return [python, script]


def run_script(name: str, job: Job, config: RunnerConfig, gpu_ids: Sequence[str]) -> ScriptResult:
    """Run ``name`` from ``job.files`` in a fresh directory, confined; see the module doc."""
    limits, gpu_run = config.limits, job.gpus > 0
    with tempfile.TemporaryDirectory(
        prefix=f"errkb-{job.article_id[:40]}-", ignore_cleanup_errors=True
    ) as tmp:
        workdir = Path(tmp)
        for file_name, data in job.files:
            (workdir / file_name).write_bytes(data)
        isolated = not limits.network and sandbox.detect().unshare is not None
        env = sandbox.environment(
            home=workdir,
            run_id=job.run_id,
            python=config.python,
            gpu_ids=gpu_ids,
            isolated=isolated,
            bytecode=config.bytecode,
        )
        with sandbox.task_group(f"{job.run_id}-{Path(name).stem}", limits) as cgroup:
            command = sandbox.wrap(
                command_for(job, name, config.python),
                python=config.python,
                limits=limits,
                gpu_run=gpu_run,
                cgroup=cgroup,
            )
            return _execute(name, command, workdir, env, job, limits, cgroup)


def _execute(
    name: str,
    command: list[str],
    workdir: Path,
    env: dict[str, str],
    job: Job,
    limits: Limits,
    cgroup: Path | None,
) -> ScriptResult:
    clock = time.monotonic()
    try:
        proc = subprocess.Popen(  # noqa: S603 - an allowlisted env, no shell
            command,
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own session and process group: killed as one
        )
    except OSError as exc:
        return ScriptResult(name, None, None, False, 0.0, "", 0, failure=f"cannot start: {exc}")
    assert proc.stdout is not None
    drain = Drain(proc.stdout, HeadTail(limits.output_head, limits.output_tail))
    timed_out = _wait(proc, job.timeout_s, limits)
    leftovers = _sweep(proc.pid, job.run_id, cgroup)
    if drain.finish(DRAIN_WAIT_S):  # else an unkillable writer holds the pipe: closing it
        proc.stdout.close()  # under the blocked reader would hang; the daemon thread ends with it
    duration = time.monotonic() - clock
    returncode = -signal.SIGKILL if proc.returncode is None else proc.returncode  # D state
    return _script_result(name, returncode, timed_out, duration, drain.buffer, leftovers, job)


def _wait(proc: subprocess.Popen[bytes], timeout_s: float, limits: Limits) -> bool:
    """Wait for the script; past its timeout, SIGINT, SIGTERM, SIGKILL the group (E1, E3)."""
    try:
        proc.wait(timeout_s)
        return False
    except subprocess.TimeoutExpired:
        pass
    stages = ((signal.SIGINT, limits.sigint_grace_s), (signal.SIGTERM, limits.sigterm_grace_s))
    for sig, grace in stages:
        _signal_group(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
            return True
    _signal_group(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):  # stuck in the kernel (D state)
        proc.wait(KILL_WAIT_S)
    return True


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _sweep(pgid: int, run_id: str, cgroup: Path | None) -> int:
    """Kill what outlived the script: its group, its cgroup, its tag (E2); count the escapees."""
    survivors = len(sandbox.members(cgroup)) if cgroup else len(sandbox.tagged(run_id))
    _signal_group(pgid, signal.SIGKILL)
    if cgroup is not None:
        sandbox.kill_group_members(cgroup)
    sandbox.kill_tagged(run_id)
    return survivors


def _script_result(
    name: str,
    returncode: int,
    timed_out: bool,
    duration: float,
    buffer: HeadTail,
    leftovers: int,
    job: Job,
) -> ScriptResult:
    text = buffer.value().decode("utf-8", "replace")
    exit_code, sig = (returncode, None) if returncode >= 0 else (None, -returncode)
    failure = _wrapper_failure(returncode, text)
    limit = None if timed_out or returncode == 0 else _limit(sig, text, job.gpus > 0)
    output = redact(text).text  # nothing leaves the worker unredacted (E14)
    return ScriptResult(
        name, exit_code, sig, timed_out, duration, output, buffer.total, limit, leftovers, failure
    )


def _wrapper_failure(returncode: int, text: str) -> str | None:
    """The bootstrap or unshare(1) failed: the script never ran (a runner failure, not a repro)."""
    if returncode == BOOTSTRAP_FAILED and BOOTSTRAP_MARKER in text[-2000:]:
        return text[text.rfind(BOOTSTRAP_MARKER) :].strip()[:500]
    if returncode in (126, 127) and UNSHARE_FAILED in text[-2000:]:
        return text[text.rfind(UNSHARE_FAILED) :].strip()[:500]
    return None


def _limit(sig: int | None, text: str, gpu_run: bool) -> str | None:
    """Which of our limits stopped the script, if one did (E4, E5)."""
    if sig == signal.SIGXFSZ or any(marker in text for marker in FILE_SIZE_MARKERS):
        return "file-size"
    if sig == signal.SIGKILL:  # not ours (we did not time it out): the OOM killer
        return "memory"
    if not gpu_run and any(marker in text for marker in MEMORY_MARKERS):
        return "memory"
    return None

"""What confines a script on this host: detected once, used when present, recorded always.

The runner never fails because a confinement is unavailable (a container
without ``unshare`` or a read-only ``/sys/fs/cgroup``); it records what it
used in the run's environment (``sandbox``), so a result says how isolated it
was. Here (root, cgroup v1) both work.

* network: ``unshare -n`` (as root; ``unshare -rn`` in a user namespace
  otherwise) gives the script a network namespace with only loopback (E6);
  detected by running the bootstrap there once. Docker's default seccomp
  profile refuses both: a worker container then records ``network: host``.
* tasks: a cgroup v1 ``pids`` group per script caps processes and threads (E8)
  and lists every process of the run for the final sweep (E2).
* environment: built from an allowlist, never copied and filtered (E7).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.verify.model import Limits

BOOTSTRAP = Path(__file__).with_name("bootstrap.py")
PIDS_ROOT = Path("/sys/fs/cgroup/pids")
CGROUP_PARENT = "errkb"
TAG = "ERRKB_RUN_ID"  # every process of a run carries it: found and killed at the end (E2)
OOM_SCORE_ADJ = 1000  # the OOM killer takes the repro first (E4)
PASS_THROUGH = ("PATH", "LANG", "LC_ALL", "TZ", "LD_LIBRARY_PATH", "CUDA_HOME", "OMP_NUM_THREADS")
FIXED_ENV = {
    "PYTHONUNBUFFERED": "1",  # the output's order is the order things happened
    "PYTHONHASHSEED": "0",
    "HF_HUB_OFFLINE": "1",  # no hub downloads even where the network is on (E6)
    "TRANSFORMERS_OFFLINE": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
}
LOOPBACK_ENV = {"GLOO_SOCKET_IFNAME": "lo", "NCCL_SOCKET_IFNAME": "lo"}


@dataclass(frozen=True)
class Support:
    """What this host offers; ``notes`` say why something is missing."""

    unshare: tuple[str, ...] | None  # the unshare(1) command line that works here, or None
    pids_cgroup: bool
    notes: tuple[str, ...] = ()

    def describe(self, limits: Limits, gpu_run: bool) -> dict[str, object]:
        """The ``sandbox`` entry of a run's environment."""
        return {
            "network": "host" if limits.network or not self.unshare else "loopback-only",
            "pids_limit": limits.tasks if self.pids_cgroup else None,
            "memory_limit": None if gpu_run else limits.memory_bytes,
            "file_size_limit": limits.file_bytes,
            "notes": list(self.notes),
        }


@functools.cache
def detect() -> Support:
    """Probe once per process: can this host isolate the network and cap tasks?"""
    notes: list[str] = []
    network = _probe_network(notes)
    pids = _probe_pids_cgroup(notes)
    return Support(network, pids, tuple(notes))


UNSHARE_FORMS = (("-n",), ("-r", "-n"))  # as root; else in a user namespace (unprivileged)


def _probe_network(notes: list[str]) -> tuple[str, ...] | None:
    unshare = shutil.which("unshare")
    if unshare is None:
        notes.append("network not isolated: no unshare(1)")
        return None
    failures = []
    for flags in UNSHARE_FORMS:
        prefix = (unshare, *flags, "--")
        failure = _try_network_namespace(prefix)
        if failure is None:
            return prefix
        failures.append(f"unshare {' '.join(flags)}: {failure}")
    notes.append("network not isolated: " + "; ".join(failures))
    return None


def _try_network_namespace(prefix: tuple[str, ...]) -> str | None:
    """Run the bootstrap (loopback up) under ``prefix``; None when it works, else why not."""
    config = json.dumps({"loopback": True})
    probe = [*prefix, sys.executable, "-I", "-S", str(BOOTSTRAP), config, "/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=20, check=False)  # noqa: S603
    except (OSError, subprocess.SubprocessError) as exc:
        return type(exc).__name__
    if done.returncode != 0:
        return done.stderr.decode(errors="replace").strip()[-200:] or f"exit {done.returncode}"
    return None


def _probe_pids_cgroup(notes: list[str]) -> bool:
    try:
        (PIDS_ROOT / CGROUP_PARENT).mkdir(exist_ok=True)
        return (PIDS_ROOT / CGROUP_PARENT / "cgroup.procs").exists()
    except OSError as exc:
        notes.append(f"no pids cgroup: {exc.strerror or type(exc).__name__}")
        return False


def environment(
    *,
    home: Path,
    run_id: str,
    python: str,
    gpu_ids: Sequence[str],
    isolated: bool,
    bytecode: bool = False,
) -> dict[str, str]:
    """The script's whole environment: an allowlist, the run's tag and its GPUs (E7).

    ``bytecode``: let Python write ``.pyc`` files into the environment under
    test (errkb's own per-set environments: uv installs no bytecode, and
    compiling torch or transformers on every import costs seconds per script).
    """
    env = {name: os.environ[name] for name in PASS_THROUGH if name in os.environ}
    bindir = str(Path(python).parent)  # `python`, `torchrun` resolve to the env under test
    env["PATH"] = os.pathsep.join([bindir, env.get("PATH", "/usr/bin:/bin")])
    env.setdefault("LANG", "C.UTF-8")
    env.update(FIXED_ENV)
    if bytecode:
        del env["PYTHONDONTWRITEBYTECODE"]
    env.update(LOOPBACK_ENV if isolated else {})
    tmp = home / ".tmp"
    tmp.mkdir(exist_ok=True)
    env.update(HOME=str(home), TMPDIR=str(tmp), CUDA_VISIBLE_DEVICES=",".join(gpu_ids))
    env[TAG] = run_id
    return env


def wrap(
    command: Sequence[str], *, python: str, limits: Limits, gpu_run: bool, cgroup: Path | None
) -> list[str]:
    """``[unshare -n --] python -I -S bootstrap.py CONFIG COMMAND...`` (see bootstrap.py)."""
    rlimits = {"FSIZE": limits.file_bytes, "CORE": 0}
    if not gpu_run:
        rlimits["AS"] = limits.memory_bytes  # CUDA reserves huge address ranges (E13)
    if os.geteuid() != 0:
        rlimits["NPROC"] = limits.tasks  # root ignores it; a worker uid does not (E8)
    unshare = None if limits.network else detect().unshare
    config = {
        "cgroup": str(cgroup / "cgroup.procs") if cgroup else None,
        "oom_score_adj": OOM_SCORE_ADJ,
        "loopback": unshare is not None,
        "rlimits": rlimits,
    }
    boot = [python, "-I", "-S", str(BOOTSTRAP), json.dumps(config), *command]
    return [*unshare, *boot] if unshare else boot


@contextlib.contextmanager
def task_group(name: str, limits: Limits) -> Iterator[Path | None]:
    """A fresh pids cgroup for one script, removed afterwards (None where unsupported)."""
    if not detect().pids_cgroup:
        yield None
        return
    path = PIDS_ROOT / CGROUP_PARENT / name
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(limits.tasks))
    except OSError:
        yield None
        return
    try:
        yield path
    finally:
        kill_group_members(path)
        with contextlib.suppress(OSError):
            path.rmdir()


def kill_group_members(cgroup: Path, rounds: int = 50) -> int:
    """SIGKILL every process in ``cgroup`` until none is left (a forking one re-reads)."""
    killed: set[int] = set()
    for _ in range(rounds):
        pids = members(cgroup)
        if not pids:
            break
        for pid in pids:
            _kill(pid)
            killed.add(pid)
        time.sleep(0.02)
    return len(killed)


def members(cgroup: Path) -> list[int]:
    """The processes in ``cgroup`` now."""
    try:
        text = (cgroup / "cgroup.procs").read_text()
    except OSError:
        return []
    return [int(line) for line in text.split()]


def kill_tagged(run_id: str, rounds: int = 50) -> int:
    """SIGKILL every process whose environment carries ``ERRKB_RUN_ID=run_id`` (E2).

    The GitHub Actions runner's orphan clean-up: it catches double-forked
    daemons and ``setsid`` children that left the process group.
    """
    killed: set[int] = set()
    for _ in range(rounds):
        found = tagged(run_id)
        if not found:
            break
        for pid in found:
            _kill(pid)
            killed.add(pid)
        time.sleep(0.02)
    return len(killed)


def tagged(run_id: str) -> list[int]:
    """The processes whose environment carries ``ERRKB_RUN_ID=run_id``."""
    needle = f"{TAG}={run_id}".encode()
    return [pid for pid in _pids() if pid != os.getpid() and _tagged(pid, needle)]


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _tagged(pid: int, needle: bytes) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:  # gone, or not ours to read
        return False
    return needle in environ.split(b"\0")


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)

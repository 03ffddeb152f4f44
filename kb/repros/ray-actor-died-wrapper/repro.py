"""Reproduce: "ActorDiedError: The actor died unexpectedly before finishing this task".

A real local Ray cluster (one CPU, no dashboard) runs a rollout actor, the way
verl's ``WorkerDict`` or OpenRLHF's PPO actors do. Its method builds the whole
rollout buffer in host RAM at once, more than the memory the actor is allowed.
On a real node the kernel's OOM killer then sends SIGKILL to the worker
process: no Python exception, nothing printed by the actor. Here the actor's
own guard (``_oom_killer``) stands for the kernel: when the worker's resident
memory passes its budget it sends the same SIGKILL to the same process.

The driver's ``ray.get`` then raises Ray's wrapper, ``ActorDiedError ... Worker
exit type: SYSTEM_ERROR ... connection error code 2. End of file``, and the
raylet logs "A worker died or was killed while executing a task by an
unexpected system error". Nothing else in the output says why: exactly the
situation the article covers (the cause is in the kernel log, not in Ray's).

CPU only, no network (launcher: python); needs ray. Ray's startup dominates the
run time (about 25 s on a loaded 2-CPU host).
"""

import os
import shutil
import sys
import tempfile

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report over the network

import ray  # noqa: E402

BUDGET_MB = 96  # what the actor may add to its resident memory (its "cgroup limit")
ROLLOUT_MB = 256  # the rollout buffer, built at once


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@ray.remote(num_cpus=0)
class WorkerDict:
    """A rollout worker: generates sequences and keeps them in host RAM."""

    def __init__(self) -> None:
        self.baseline_mb = _rss_mb()

    def _oom_killer(self) -> None:
        """Stands for the kernel's OOM killer: SIGKILL once the budget is exceeded."""
        if _rss_mb() - self.baseline_mb > BUDGET_MB:
            os.kill(os.getpid(), 9)

    def generate_sequences(self, total_mb: int) -> int:
        buffer = bytearray(total_mb * 2**20)  # BUG: the whole rollout buffer at once
        for i in range(0, len(buffer), 4096):  # touch every page: resident, as real data is
            buffer[i] = 1
        self._oom_killer()
        return len(buffer) // 2**20


def start_ray(session_dir: str) -> None:
    """A local one-CPU cluster; more tries when a loaded host misses Ray's 30 s startup wait.

    Ray's sockets live under its temp dir and a Unix socket path has at most
    107 bytes: the sandbox's own TMPDIR is too deep, so a short folder is used.
    """
    for attempt in (1, 2, 3):
        try:
            ray.init(
                num_cpus=1,
                include_dashboard=False,
                object_store_memory=80 * 2**20,
                _node_ip_address="127.0.0.1",
                _temp_dir=session_dir,
            )
            return
        except Exception as exc:  # ray raises a bare Exception for this
            if attempt == 3 or "timed out during startup" not in str(exc):
                raise
            print("ray startup timed out on a loaded host, starting it again", flush=True)
            ray.shutdown()


def main() -> int:
    session_dir = tempfile.mkdtemp(prefix="errkb-ray-", dir="/tmp")
    start_ray(session_dir)
    try:
        worker = WorkerDict.remote()  # type: ignore[attr-defined]
        generated = ray.get(worker.generate_sequences.remote(ROLLOUT_MB), timeout=120)
        print("generated", generated, "MB of rollouts")
    finally:
        ray.shutdown()
        shutil.rmtree(session_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

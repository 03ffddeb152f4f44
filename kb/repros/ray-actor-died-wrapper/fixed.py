"""Fixed: the actor holds less host RAM, so the OOM killer has nothing to kill.

The article's fix for a ``SYSTEM_ERROR`` death with no traceback: find the
cause outside Ray (here the OOM killer), then lower what each actor holds.
Same cluster, actor and memory guard as repro.py (the guard stands for the
kernel's OOM killer, see there); the actor now generates the rollouts in
micro-batches and keeps only their summary, so its resident memory stays well
under the budget, the task returns and the driver prints the result.

CPU only, no network (launcher: python); needs ray.
"""

import os
import shutil
import sys
import tempfile

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report over the network

import ray  # noqa: E402

BUDGET_MB = 96
ROLLOUT_MB = 256
MICRO_BATCH_MB = 16  # the fix: generate and reduce one micro-batch at a time


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@ray.remote(num_cpus=0)
class WorkerDict:
    def __init__(self) -> None:
        self.baseline_mb = _rss_mb()

    def _oom_killer(self) -> None:
        if _rss_mb() - self.baseline_mb > BUDGET_MB:
            os.kill(os.getpid(), 9)

    def generate_sequences(self, total_mb: int) -> int:
        generated = 0
        for _ in range(total_mb // MICRO_BATCH_MB):
            batch = bytearray(MICRO_BATCH_MB * 2**20)
            for i in range(0, len(batch), 4096):
                batch[i] = 1
            self._oom_killer()
            generated += len(batch) // 2**20
            del batch  # only the summary is kept
        return generated


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
        print("generated", generated, "MB of rollouts in", MICRO_BATCH_MB, "MB micro-batches")
    finally:
        ray.shutdown()
        shutil.rmtree(session_dir, ignore_errors=True)
    return 0 if generated == ROLLOUT_MB else 1


if __name__ == "__main__":
    sys.exit(main())

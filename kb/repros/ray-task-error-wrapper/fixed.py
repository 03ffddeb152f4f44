"""Fixed: the error inside the wrapper is fixed where it was raised, in the actor's code.

The article's fix: read the last line under the ``RayTaskError(...)`` header
(here ``TypeError: unsupported operand type(s) for +=: 'float' and
'NoneType'`` in ``mean_reward``) and fix that code, not Ray. Same cluster,
actor and batches as repro.py; the reward function now skips the scores of
unfinished responses, so ``TaskRunner.run()`` returns and the driver prints
the result.

CPU only, no network (launcher: python); needs ray.
"""

import os
import shutil
import sys
import tempfile

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report over the network

import ray  # noqa: E402


def mean_reward(scores: list[float | None]) -> float:
    finished = [score for score in scores if score is not None]  # the fix: skip unfinished
    return sum(finished) / max(len(finished), 1)


@ray.remote(num_cpus=0)
class TaskRunner:
    """The single actor that runs the whole training loop, as in verl."""

    def run(self, steps: int) -> float:
        last = 0.0
        for step in range(steps):
            scores = [1.0, 0.5, None if step == 1 else 0.0]
            last = mean_reward(scores)
        return last


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
        runner = TaskRunner.remote()  # type: ignore[attr-defined]
        print("last mean reward:", ray.get(runner.run.remote(3), timeout=120))
    finally:
        ray.shutdown()
        shutil.rmtree(session_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

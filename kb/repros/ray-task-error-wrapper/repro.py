"""Reproduce: "ray.exceptions.RayTaskError(TypeError): ray::TaskRunner.run() (pid=..., ...)".

A real local Ray cluster (one CPU, no dashboard). As in verl's ``main_ppo``
and EasyR1's ``Runner``, the driver starts one ``TaskRunner`` actor and waits
on ``ray.get(runner.run.remote(config))``; the whole training loop runs inside
that actor. Here the loop's reward function is given a batch whose scores are
``None`` for unfinished responses and adds them up: a plain Python
``TypeError`` raised in the actor process.

Ray stores the exception as the task's result and re-raises it in the
driver as ``ray.exceptions.RayTaskError(TypeError): ray::TaskRunner.run()
(pid=..., ip=..., actor_id=..., repr=...)``, followed by the actor's own
traceback and its last line, the real error. The header only names the
process and the method that raised it.

CPU only, no network (launcher: python); needs ray.
"""

import os
import shutil
import sys
import tempfile

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report over the network

import ray  # noqa: E402


def mean_reward(scores: list[float | None]) -> float:
    total = 0.0
    for score in scores:
        total += score  # type: ignore[operator]  # BUG: None for a response that did not finish
    return total / len(scores)


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

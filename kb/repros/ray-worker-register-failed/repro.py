"""Reproduce: "Some workers of the worker process(N) have not registered within the timeout".

A real local Ray cluster (one CPU, no dashboard). The driver passes its
workers a ``runtime_env`` with environment variables, the way verl's and
TinyZero's ``ray.init(runtime_env={"env_vars": ...})`` do, and one of them,
``PYTHONHOME``, points at an interpreter that is not there (copied from
another machine's or another environment's setup). Every worker process the
raylet starts is then a Python that cannot start: it prints "Fatal Python
error: init_fs_encoding" and exits before it can register with the raylet.

The raylet logs "Some workers of the worker process(N) have not registered
within the timeout. The process is dead, probably it crashed during start."
(forwarded to the driver with the "(raylet)" prefix), starts the worker again,
and after five tries fails the task: ``RaySystemError: System error: Failed to
startup worker after retrying 5 times``. The registration timeout is lowered to
5 s (``RAY_worker_register_timeout_seconds``, 60 s by default in Ray 2.60) so
the five tries take seconds, not minutes.

CPU only, no network (launcher: python); needs ray.
"""

import os
import shutil
import sys
import tempfile

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report over the network
os.environ.setdefault("RAY_worker_register_timeout_seconds", "5")  # 60 s by default

import ray  # noqa: E402

WORKER_ENV = {
    "TOKENIZERS_PARALLELISM": "true",
    "NCCL_DEBUG": "WARN",
    "PYTHONHOME": "/opt/conda/envs/train",  # BUG: another interpreter's home, absent here
}


@ray.remote(num_cpus=1)
def score_rollouts(n: int) -> int:
    return sum(range(n))


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
                runtime_env={"env_vars": WORKER_ENV},
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
        print("score:", ray.get(score_rollouts.remote(100), timeout=240))
    finally:
        ray.shutdown()
        shutil.rmtree(session_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

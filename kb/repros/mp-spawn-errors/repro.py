"""Reproduce: torch.multiprocessing.spawn "ProcessRaisedException: -- Process 0
terminated with the following error" around a mistake in how the worker is
called.

mp.spawn calls ``fn(i, *args)`` in every child, where ``i`` is the process
index and ``args`` must be a tuple. ``args=("config.yaml")`` is not a tuple
but a string (the parentheses alone do not make one), so each child calls
``worker(0, "c", "o", "n", ...)`` and fails with a TypeError; the parent
re-raises the first child's traceback inside ProcessRaisedException.

CPU only, two spawned processes without any process group (launcher: python).
"""

import sys

import torch.multiprocessing as mp


def worker(rank: int, config_path: str) -> None:
    print(f"rank {rank} reads {config_path}", flush=True)


def main() -> int:
    mp.spawn(worker, args=("config.yaml"), nprocs=2)  # BUG: a string, not a 1-tuple
    return 0


if __name__ == "__main__":
    sys.exit(main())

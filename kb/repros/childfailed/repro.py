"""Reproduce: torchrun's ChildFailedError with no traceback behind it.

Rank 1 stops the job the way many real failures do: without a Python
traceback. Here it is a data check that logs one line and calls
``sys.exit(3)``; in real jobs it is often the kernel's OOM killer (exit
code -9), a segfault in an extension (-11), or a rank-local
``sys.exit``/``os._exit`` deep in a library. Rank 0 is busy in its step
and only gets the launcher's SIGTERM. torchrun then prints the
ChildFailedError summary; without ``@record`` on the entry point the
"Root Cause" section says ``error_file: <N/A>`` and points at the elastic
errors page instead of a traceback.

CPU only, two processes (launcher: torchrun --standalone --nproc-per-node=2).
"""

import os
import sys
import time


def main() -> None:
    rank = int(os.environ["RANK"])
    print(f"rank {rank}: loading shard {rank}", flush=True)
    if rank == 1:
        # A rank-local failure that prints no traceback.
        print(f"rank {rank}: shard {rank} failed its checksum, exiting", flush=True)
        sys.exit(3)
    time.sleep(60)  # rank 0: a long training step; torchrun terminates it


if __name__ == "__main__":
    main()

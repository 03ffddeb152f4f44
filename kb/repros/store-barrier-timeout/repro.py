"""Reproduce: "Timed out initializing process group in store based barrier"
because one rank never joins the group being created.

``dist.new_group`` must be called by every rank of the default group, even
ranks that are not members. Here only rank 0 creates the evaluation group
(a collective call hidden behind ``if rank == 0``), so its store-based barrier
waits for a second worker that never checks in and fails after the timeout.
PyTorch 1.8-1.13 ran this barrier after every init_process_group/new_group;
since 2.0 it runs when TORCH_DIST_INIT_BARRIER=1, which the script sets to
show the check.

Two processes on the CPU with gloo (launcher: torchrun, 2 processes); the
default group's timeout is 10 s (both ranks join it), the evaluation group's 3 s, so
the failure arrives quickly.
"""

import os
import time
from datetime import timedelta

os.environ.setdefault("TORCH_DIST_INIT_BARRIER", "1")

import torch.distributed as dist  # noqa: E402


def main() -> None:
    dist.init_process_group("gloo", timeout=timedelta(seconds=10))
    rank = dist.get_rank()
    if rank == 0:  # BUG: new_group is collective; rank 1 never calls it
        eval_group = dist.new_group(ranks=[0, 1], timeout=timedelta(seconds=3))
        dist.barrier(group=eval_group)
    else:
        time.sleep(15)  # rank 1 is busy elsewhere (e.g. writing a checkpoint)
    print(f"rank {rank} done", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

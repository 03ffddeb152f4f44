"""Fixed: every rank calls new_group, in the same order, members or not.

Same two processes as repro.py with TORCH_DIST_INIT_BARRIER=1: both ranks
create the evaluation group before using it, so the store-based barrier sees
all workers check in.

Two processes on the CPU with gloo (launcher: torchrun, 2 processes).
"""

import os
from datetime import timedelta

os.environ.setdefault("TORCH_DIST_INIT_BARRIER", "1")

import torch.distributed as dist  # noqa: E402


def main() -> None:
    dist.init_process_group("gloo", timeout=timedelta(seconds=10))
    rank = dist.get_rank()
    eval_group = dist.new_group(ranks=[0, 1], timeout=timedelta(seconds=10))  # all ranks call it
    dist.barrier(group=eval_group)
    print(f"ok: rank {rank} passed the group's barrier", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

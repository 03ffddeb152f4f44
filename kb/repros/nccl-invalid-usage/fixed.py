"""Fixed: each rank selects its own GPU from LOCAL_RANK before any CUDA work.

Same two processes as repro.py. With a single GPU the two ranks cannot both
use NCCL, so the fix also follows the article's second step: when fewer GPUs
than processes are visible, the script falls back to the gloo backend on the
CPU instead of putting two NCCL ranks on one device.

Needs one CUDA GPU and two processes (launcher: torchrun, 2 processes).
Planned for a GPU worker; not verified on the CPU-only machine where the
article was written.
"""

import os
import sys

import torch
import torch.distributed as dist
from torch import nn


def main() -> int:
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    if torch.cuda.device_count() >= world_size:
        torch.cuda.set_device(local_rank)  # the fix: one GPU per rank
        dist.init_process_group("nccl")
        device = torch.device("cuda", local_rank)
        model = nn.parallel.DistributedDataParallel(nn.Linear(16, 16).to(device), device_ids=[local_rank])
    else:  # not enough GPUs for one per rank: do not share a GPU between NCCL ranks
        dist.init_process_group("gloo")
        device = torch.device("cpu")
        model = nn.parallel.DistributedDataParallel(nn.Linear(16, 16))
    model(torch.randn(4, 16, device=device)).sum().backward()
    print(f"ok: rank {dist.get_rank()} on {device}", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

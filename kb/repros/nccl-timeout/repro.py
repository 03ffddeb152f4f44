"""Reproduce: an NCCL collective times out because one rank is late (culprit vs victim).

Two ranks train in lock step. After step 1, rank 0 alone does a slow piece
of work (think: evaluation, writing a checkpoint, a stuck data loader) that
takes longer than the process group timeout, which is set to 10 seconds here
so the run is short. Rank 1 has already entered the next all_reduce and waits
for rank 0. After 10 s the NCCL watchdog on rank 1 reports
"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=..,
OpType=ALLREDUCE, ...) ran for ... milliseconds before timing out" and takes
the process down (SIGABRT); torchrun then terminates rank 0.

Rank 1 is the rank that reports the timeout, but it is the victim: the
culprit is rank 0, which never arrived. That is the point of the article.

Requires: 2 CUDA GPUs (launcher: torchrun --standalone --nproc-per-node=2).
"""

import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

TIMEOUT = timedelta(seconds=10)
SLOW_WORK_S = 40  # rank 0's extra work, longer than TIMEOUT


def main() -> int:
    if torch.cuda.device_count() < 2:
        print("this reproduction needs 2 CUDA GPUs", file=sys.stderr)
        return 2
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", timeout=TIMEOUT)
    rank = dist.get_rank()
    grad = torch.ones(1024, device="cuda")
    for step in range(3):
        if step == 2 and rank == 0:
            print(f"rank {rank}: step {step}: running evaluation on rank 0 only", flush=True)
            time.sleep(SLOW_WORK_S)
        dist.all_reduce(grad)
        torch.cuda.synchronize()
        print(f"rank {rank}: step {step} done", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

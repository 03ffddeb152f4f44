"""Fixed: the ranks no longer diverge for longer than the collective timeout.

Same job as repro.py. The culprit was rank 0's rank-0-only evaluation, so the
fix removes the imbalance instead of hiding it: every rank takes part in the
evaluation (here: each rank evaluates its shard, a short sleep, and the
results are all-reduced), so no rank waits in a collective while another
does minutes of work alone. The timeout stays at 10 s, which shows that the
job no longer needs a longer one.

Requires: 2 CUDA GPUs (launcher: torchrun --standalone --nproc-per-node=2).
"""

import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

TIMEOUT = timedelta(seconds=10)
EVAL_SHARD_S = 2  # each rank evaluates its own shard: a short, balanced piece of work


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
        if step == 2:
            time.sleep(EVAL_SHARD_S)
            score = torch.tensor([float(rank)], device="cuda")
            dist.all_reduce(score)  # every rank evaluates; the scores are combined
            print(f"rank {rank}: evaluation score {score.item():.1f}", flush=True)
        dist.all_reduce(grad)
        torch.cuda.synchronize()
        print(f"rank {rank}: step {step} done", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

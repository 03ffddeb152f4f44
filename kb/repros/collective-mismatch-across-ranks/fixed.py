"""Fixed: every rank calls the same collective with the same shape.

Same two processes as repro.py, TORCH_DISTRIBUTED_DEBUG=DETAIL still on: each
rank reduces a fixed-size summary of its batch (the sum of its token losses
and their count) instead of the per-token tensor, whose length depends on the
rank's data. The fingerprints agree and the collective runs.

Two processes on the CPU with gloo (launcher: torchrun, 2 processes).
"""

import os
from datetime import timedelta

os.environ.setdefault("TORCH_DISTRIBUTED_DEBUG", "DETAIL")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def main() -> None:
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    rank = dist.get_rank()
    seq_len = 256 if rank == 0 else 2048
    token_loss = torch.ones(seq_len)
    summary = torch.stack([token_loss.sum(), torch.tensor(float(token_loss.numel()))])
    dist.all_reduce(summary)  # same shape ([2]) on every rank
    mean = (summary[0] / summary[1]).item()
    print(f"ok: rank {rank} global mean loss {mean:.3f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

"""Reproduce: "RuntimeError: Detected mismatch between collectives on ranks.
Rank 0 is running collective: CollectiveFingerPrint(...), but Rank 1 is running
collective: CollectiveFingerPrint(...)".

Each rank syncs a statistic of its own batch: the number of elements depends on
the data the rank got (here the batch's sequence length), so rank 0 calls
all_reduce on 256 elements and rank 1 on 2048. Collectives must be called by
every rank in the same order with the same shapes. Without a check this either
hangs (NCCL) or fails obscurely (gloo); with TORCH_DISTRIBUTED_DEBUG=DETAIL,
PyTorch wraps every process group and compares the ranks' "fingerprints"
before each collective, and reports the mismatch.

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
    seq_len = 256 if rank == 0 else 2048  # each rank's batch has its own length
    token_loss = torch.ones(seq_len)
    dist.all_reduce(token_loss)  # BUG: shape differs across ranks
    print(f"rank {rank} synced {token_loss.numel()} values", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

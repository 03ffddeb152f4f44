"""Reproduce: "RuntimeError: Distributed package doesn't have NCCL built in".

The training script hard-codes the NCCL backend. NCCL exists only in the
Linux CUDA builds of torch; the Windows and macOS builds, and every CPU-only
build (the one this repro runs on), ship without it, so
``init_process_group("nccl")`` fails before any communication happens.

One process with a single-member process group keeps the repro fast and
independent of ports (launcher: python; torchrun with N ranks fails the same).
"""

import os
import sys

import torch
import torch.distributed as dist


def main() -> int:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29581")
    print(f"torch {torch.__version__}, NCCL available: {dist.is_nccl_available()}", flush=True)
    dist.init_process_group(backend="nccl", rank=0, world_size=1)  # BUG: NCCL hard-coded
    tensor = torch.ones(4)
    dist.all_reduce(tensor)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

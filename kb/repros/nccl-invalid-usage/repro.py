"""Reproduce: NCCL "invalid usage ... Duplicate GPU detected" from two ranks on
one GPU.

Two processes join one NCCL process group but neither selects its own device,
so both use cuda:0. NCCL refuses to build a communicator with two ranks on the
same GPU at the first collective (here the parameter check inside the DDP
constructor).

Needs one CUDA GPU and two processes (launcher: torchrun, 2 processes).
Planned for a GPU worker; not verified on the CPU-only machine where the
article was written.
"""

import sys

import torch
import torch.distributed as dist
from torch import nn


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    dist.init_process_group("nccl")
    model = nn.Linear(16, 16).cuda()  # BUG: no torch.cuda.set_device(local_rank): every rank on cuda:0
    ddp = nn.parallel.DistributedDataParallel(model)
    ddp(torch.randn(4, 16, device="cuda")).sum().backward()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

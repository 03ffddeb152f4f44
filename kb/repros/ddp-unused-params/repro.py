"""Reproduce: DDP with a parameter that never receives a gradient.

The model has an auxiliary head that ``forward`` never calls (a common
leftover: a second head that is only used in another training stage, a frozen
branch behind an ``if``, a layer built in ``__init__`` and forgotten). DDP's
reducer waits for a gradient of every registered parameter before the
all-reduce of a bucket can finish; the auxiliary head's parameters never get
one, so the reduction of the first iteration never completes and the next
forward pass fails with "Expected to have finished reduction in the prior
iteration before starting a new one".

Two processes on the CPU with gloo; the failure is in DDP's reducer and does
not depend on the backend or the device.

Launch: torchrun --standalone --nproc-per-node=2 repro.py
"""

import gc
import os
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn


class TwoHeadModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Linear(16, 16)
        self.head = nn.Linear(16, 1)
        self.aux_head = nn.Linear(16, 4)  # registered, never used by forward()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.backbone(x)))


def train(rank: int) -> None:
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(TwoHeadModel())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(3):
        x = torch.randn(8, 16)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)


def main() -> None:
    dist.init_process_group("gloo", timeout=timedelta(seconds=20))
    # The DDP model lives inside train() and is gone before the process group is
    # destroyed: tearing the group down under a live DDP reducer sometimes aborts
    # the process at exit with torch 2.13 on the CPU.
    train(dist.get_rank())
    gc.collect()  # DDP holds reference cycles: free the reducer now, not at exit
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()

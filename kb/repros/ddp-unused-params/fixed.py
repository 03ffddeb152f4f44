"""Fixed: tell DDP that some parameters may not receive a gradient.

Same model as repro.py. ``find_unused_parameters=True`` makes DDP walk the
autograd graph after each forward pass and mark the parameters that did not
take part as ready, so the bucket all-reduce can finish. (Removing the unused
head, or freezing it with ``requires_grad_(False)`` before wrapping, fixes it
too and costs nothing at run time; the article explains when to use which.)

Launch: torchrun --standalone --nproc-per-node=2 fixed.py
"""

import gc
import os
import sys
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
    model = nn.parallel.DistributedDataParallel(TwoHeadModel(), find_unused_parameters=True)
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
    # The work is done and the group destroyed; gloo's background threads can still
    # abort interpreter shutdown after a clean run ("terminate called without an
    # active exception", SIGABRT), which would report a working fix as broken. Leave
    # without finalisation.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)

"""Fixed: the non-reentrant activation checkpoint (use_reentrant=False).

Same model and DDP settings as repro.py (find_unused_parameters=True and an
unused branch). The non-reentrant implementation recomputes activations
through saved-tensor hooks inside the single backward pass instead of running
a nested backward, so every parameter's gradient hook fires once per
iteration and DDP's reducer is satisfied. With HF models:
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False}).

Two processes on the CPU with gloo (launcher: torchrun, 2 processes).
"""

import gc
import os
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.lin(x))


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(2)])
        self.head = nn.Linear(16, 1)
        self.aux = nn.Linear(16, 4)  # only used in another training stage

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)  # the fix: non-reentrant checkpoint
        return self.head(x)


def train(rank: int) -> None:
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(Net(), find_unused_parameters=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(2):
        x = torch.randn(4, 16, requires_grad=True)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)


def main() -> None:
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    train(dist.get_rank())
    gc.collect()  # free the DDP reducer before the process group goes away
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()

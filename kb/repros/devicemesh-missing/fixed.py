"""Fixed: give DDP a model with ordinary (non-DTensor) parameters.

Same tiny MLP as repro.py, but nothing shards it before DDP wraps it; in
transformers terms, load it without ``device_map="auto"`` (or with
``device_map={"": local_rank}``) when a launcher starts one process per GPU.
One DDP training step shows the wrap and the gradient all-reduce work.

Launch: torchrun --standalone --nproc-per-node=2 fixed.py  (gloo, CPU)
"""

import os
import sys

import torch
import torch.distributed as dist
from torch import nn


class PolicyMLP(nn.Module):
    def __init__(self, obs: int = 8, hidden: int = 32, act: int = 4) -> None:
        super().__init__()
        self.fc_in = nn.Linear(obs, hidden)
        self.fc_out = nn.Linear(hidden, act)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc_out(torch.tanh(self.fc_in(x)))


def main() -> None:
    dist.init_process_group("gloo")
    torch.manual_seed(0)

    model = nn.parallel.DistributedDataParallel(PolicyMLP())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    gen = torch.Generator().manual_seed(dist.get_rank())
    x, target = torch.randn(16, 8, generator=gen), torch.randn(16, 4, generator=gen)
    loss = nn.functional.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()
    if dist.get_rank() == 0:
        print(f"ok: one DDP step, loss={loss.item():.4f}")
    # Wait for every rank before tearing gloo down: a rank that leaves first
    # can abort its peer's pending socket work ("terminate called without an
    # active exception", SIGABRT) and turn a passing fix into a crash.
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    # The work is done and the group destroyed; gloo's background threads can still
    # abort interpreter shutdown after a clean run ("terminate called without an
    # active exception", SIGABRT), which would report a working fix as broken. Leave
    # without finalisation.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)

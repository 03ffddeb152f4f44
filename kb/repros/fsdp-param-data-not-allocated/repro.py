"""Reproduce: "RuntimeError: The tensor has a non-zero number of elements, but
its data is not allocated yet." from a module wrapped by FSDP (FSDP1, the
FullyShardedDataParallel class) but called outside FSDP's own forward.

FSDP keeps each wrapped module's parameters in one sharded flat parameter per
unit. Around its forward it all-gathers the flat parameter and points the
module's parameters at the gathered storage; afterwards it frees that storage
(resizes it to 0) and keeps only the shard. The module's ``weight`` attributes
are then views of a storage of size 0: the shape still says (8, 4), the data is
gone. Code that runs the inner module directly (``fsdp_model.module``,
``accelerator.unwrap_model(model)``, ``model.module.generate(...)`` for
evaluation or sampling) reads those views, and the first kernel that asks for
the data fails (here a matmul; on CUDA nearly every kernel).

Two processes on the CPU with gloo (launcher: torchrun, 2 processes); with one
process FSDP would not shard.
"""

from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


class Scorer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(8, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight


def main() -> None:
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = FSDP(Scorer(), device_id=torch.device("cpu"))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(2, 8)
    model(x).pow(2).mean().backward()  # a training step through FSDP
    opt.step()
    with torch.no_grad():
        scores = model.module(x)  # BUG: the inner module, outside FSDP's forward
    print(f"rank {rank} eval scores {tuple(scores.shape)}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

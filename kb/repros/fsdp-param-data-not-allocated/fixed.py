"""Fixed: the inner module runs only where FSDP has gathered its parameters.

Same model and step as repro.py. Evaluation goes through the FSDP wrapper
(``model(x)``: FSDP gathers, runs, frees), and a one-off use of the inner
module (``generate`` of an unwrapped Hugging Face model, reading a weight) sits
inside ``FSDP.summon_full_params(model, writeback=False)``, which gathers the
full parameters for the block on every rank. Both give the same scores.

Two processes on the CPU with gloo (launcher: torchrun, 2 processes).
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
    model(x).pow(2).mean().backward()
    opt.step()
    with torch.no_grad():
        through_fsdp = model(x)  # the fix: call the wrapper
        with FSDP.summon_full_params(model, writeback=False):  # or gather for the inner module
            by_hand = model.module(x)
    assert torch.allclose(through_fsdp, by_hand), "the two ways disagree"
    print(f"rank {rank} eval scores {tuple(by_hand.shape)}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

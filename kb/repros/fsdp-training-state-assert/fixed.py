"""Fixed: compute everything the loss needs inside the root module's forward.

Same model and auxiliary loss as repro.py, but ``forward`` returns the
intermediate features together with the output, so every FSDP unit runs
inside the root's forward and backward and FSDP's state machine sees the
order it expects.

Two processes on the CPU with gloo (launcher: torchrun, 2 processes).
"""

import gc
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        feats = self.body(x)
        return self.head(torch.relu(feats)), feats  # the fix: return what the loss needs


def wrap_linears(module: nn.Module, recurse: bool, nonwrapped_numel: int) -> bool:
    return recurse or isinstance(module, nn.Linear)


def main() -> None:
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = FSDP(Net(), device_id=torch.device("cpu"), auto_wrap_policy=wrap_linears)
    x = torch.randn(4, 8)
    out, feats = model(x)
    loss = out.sum() + feats.pow(2).mean()
    loss.backward()
    print(f"ok: rank {dist.get_rank()} loss {loss.item():.4f}", flush=True)
    del model, out, feats, loss
    gc.collect()  # free FSDP state before the process group goes away (teardown is racy otherwise)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()

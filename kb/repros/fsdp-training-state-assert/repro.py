"""Reproduce: an FSDP state assertion when a wrapped submodule is called outside
the root FSDP module's forward.

The model is wrapped with FSDP (each Linear its own FSDP unit). For an
auxiliary loss the script calls ``model.module.body(x)`` directly, before the
first call of the root. FSDP keeps a per-instance state machine (root or not,
IDLE / FORWARD_BACKWARD, handle states) that assumes every unit runs inside the
root's forward and backward; here a nested unit runs first and treats itself
as the root, and FSDP aborts with "Non-root FSDP instance's `_is_root` should
not have been set yet". Variants of the same misuse fail in backward with
"Expects `BACKWARD_PRE` or `BACKWARD_POST` state but got HandleTrainingState.X"
or "expected to be in states [...] but current state is TrainingState.IDLE".

Two processes on the CPU with gloo (launcher: torchrun, 2 processes).
"""

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

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.body(x)))


def wrap_linears(module: nn.Module, recurse: bool, nonwrapped_numel: int) -> bool:
    return recurse or isinstance(module, nn.Linear)


def main() -> None:
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = FSDP(Net(), device_id=torch.device("cpu"), auto_wrap_policy=wrap_linears)
    x = torch.randn(4, 8)
    feats = model.module.body(x)  # BUG: a wrapped unit called outside the root's forward
    loss = model(x).sum() + feats.pow(2).mean()
    loss.backward()
    print(f"rank {dist.get_rank()} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()

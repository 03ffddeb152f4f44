"""Reproduce: DistributedDataParallel wrapping a model whose parameters are all DTensors.

With transformers 4.50-4.53, ``from_pretrained(..., device_map="auto")`` under
torchrun / accelerate launch applied tensor parallelism, so the weights came
back as DTensors. ``accelerator.prepare()`` then wrapped the model in DDP, and
DDP's constructor broadcasts every parameter from rank 0 with a c10d
collective that DTensor cannot dispatch: older torch raises
``AssertionError: found no DeviceMesh from dtensor args for c10d.broadcast_.default!``,
torch 2.13 raises ``NotImplementedError: Operator c10d.broadcast_.default does
not have a sharding strategy registered.``

No transformers needed: a tiny MLP is sharded with torch's tensor-parallel API
(every parameter becomes a DTensor, no plain buffers) and wrapped in DDP.

Launch: torchrun --standalone --nproc-per-node=2 repro.py  (gloo, CPU)
"""

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import (
    ColwiseParallel,
    RowwiseParallel,
    parallelize_module,
)


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
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))

    model = PolicyMLP()
    parallelize_module(model, mesh, {"fc_in": ColwiseParallel(), "fc_out": RowwiseParallel()})

    # accelerator.prepare() in a multi-GPU run: plain DDP around the DTensor model
    model = nn.parallel.DistributedDataParallel(model)

    dist.destroy_process_group()


if __name__ == "__main__":
    main()

"""Reproduce: a torch.distributed call before init_process_group().

A training script written for torchrun (DistributedSampler, DDP, all_reduce
of the loss for logging) is started as a plain ``python train.py``. It
initialises the process group only when the launcher's environment says
there are several processes, so in a single-process run nothing creates
the default group, and the first call that needs it, building the
DistributedSampler, raises "Default process group has not been initialized,
please make sure to call init_process_group." (ValueError in current
releases, RuntimeError in older ones).

CPU only, one process (launcher: python).
"""

import os
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def setup() -> None:
    # The bug: the group is created only for multi-process launches, but the rest
    # of the script always uses the distributed code path.
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        dist.init_process_group("gloo")


def main() -> int:
    setup()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
    sampler = DistributedSampler(data, shuffle=True)
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return 0


if __name__ == "__main__":
    sys.exit(main())

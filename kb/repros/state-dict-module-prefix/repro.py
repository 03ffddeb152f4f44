"""Reproduce: "Missing key(s) in state_dict: ... Unexpected key(s) in state_dict:
"module. ..." when a checkpoint saved from a wrapped model is loaded into the bare
model.

Training wrapped the model in nn.DataParallel (DistributedDataParallel does the
same): the wrapper keeps the real model as its attribute ``module``, so every key
of ``wrapper.state_dict()`` starts with ``module.``. An evaluation script builds
the bare model and loads that file strictly: no key matches, and load_state_dict
lists every key twice, once as missing and once as unexpected.

CPU only (DataParallel without GPUs simply calls the module), no downloads; the
checkpoint goes to a temporary directory (launcher: python).
"""

import os
import sys
import tempfile

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(16, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.encoder(x)))


def main() -> int:
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ckpt.pt")
        trained = nn.DataParallel(Net())  # the training script's wrapper
        torch.save({"model": trained.state_dict(), "epoch": 3}, path)  # BUG: keys are "module.*"

        model = Net()  # the evaluation script builds the bare model
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
        model.load_state_dict(ckpt["model"])
        print("loaded", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: resuming training fails with "KeyError: 'step'" inside
Adam/AdamW.__setstate__ because the saved optimizer state comes from another
optimizer type.

The first run trained with SGD + momentum (a script that picks the optimizer
automatically, or a changed config) and saved ``optimizer.state_dict()``; its
per-parameter state holds only ``momentum_buffer``. The resumed run builds
AdamW and loads that state: AdamW expects a ``step`` entry in every
parameter's state and fails with a bare KeyError.

CPU only, no downloads; the checkpoint goes to a temporary directory
(launcher: python).
"""

import os
import sys
import tempfile

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "last.pt")
        first = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)  # run 1
        model(torch.randn(8, 16)).pow(2).mean().backward()
        first.step()
        torch.save({"model": model.state_dict(), "optimizer": first.state_dict(), "epoch": 1}, path)

        ckpt = torch.load(path, map_location="cpu", weights_only=True)  # run 2: resume
        model.load_state_dict(ckpt["model"])
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)  # another optimizer now
        optimizer.load_state_dict(ckpt["optimizer"])
        print("resumed at epoch", ckpt["epoch"], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "NotImplementedError: Cannot copy out of meta tensor; no data!".

Fast model construction the way big-model loaders do it: build the module on
the meta device (shapes only, no memory, no random init), then fill it from a
checkpoint. ``load_state_dict`` *copies* into the existing parameters by
default, and copying into a meta tensor does nothing (torch warns that it is a
no-op), so every parameter is still on meta afterwards. The first ``.to()``
then has to copy data that does not exist and raises.

CPU only, no downloads; the checkpoint is written to a temporary directory
(launcher: python).
"""

import os
import sys
import tempfile

import torch
from torch import nn


def build() -> nn.Module:
    return nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 8))


def main() -> int:
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt")
        torch.save(build().state_dict(), path)

        with torch.device("meta"):
            model = build()  # no storage allocated yet
        state_dict = torch.load(path, map_location="cpu", weights_only=True)
        model.load_state_dict(state_dict)  # BUG: copies into meta tensors, a no-op
        model.to("cpu")
        out = model(torch.randn(2, 32))
        print(f"output {tuple(out.shape)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: let load_state_dict *assign* the checkpoint tensors (``assign=True``).

Same program as repro.py. With ``assign=True`` (torch 2.1 and later) the
module's meta parameters are replaced by the loaded tensors instead of being
copied into, so after loading every parameter has real data on the CPU and
``.to()`` works. The script checks that no meta tensor is left and that the
weights are the checkpoint's.

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
        model.load_state_dict(state_dict, assign=True)  # FIX: take the loaded tensors
        left = [n for n, t in [*model.named_parameters(), *model.named_buffers()] if t.is_meta]
        if left or not torch.equal(model[0].weight, state_dict["0.weight"]):
            print(f"still on meta or not loaded: {left}", file=sys.stderr)
            return 1
        model.to("cpu")
        out = model(torch.randn(2, 32))
        print(f"output {tuple(out.shape)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

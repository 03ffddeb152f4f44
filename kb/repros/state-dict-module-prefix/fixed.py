"""Fixed: strip the wrapper's "module." prefix before loading (and save the
unwrapped model from now on).

Same scenario as repro.py. Two fixes are shown: new checkpoints are saved from
``wrapper.module`` so their keys have no prefix, and the old checkpoint is
repaired on load with torch's own helper
``consume_prefix_in_state_dict_if_present``. Both loads are strict, so any key
that is really missing would still fail.

CPU only, no downloads (launcher: python).
"""

import os
import sys
import tempfile

import torch
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


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
        old_path = os.path.join(tmp, "ckpt-old.pt")
        new_path = os.path.join(tmp, "ckpt-new.pt")
        trained = nn.DataParallel(Net())
        torch.save({"model": trained.state_dict(), "epoch": 3}, old_path)  # an existing checkpoint
        torch.save({"model": trained.module.state_dict(), "epoch": 3}, new_path)  # fix 1: save unwrapped

        model = Net()
        model.load_state_dict(torch.load(new_path, map_location="cpu", weights_only=True)["model"])

        state = torch.load(old_path, map_location="cpu", weights_only=True)["model"]
        consume_prefix_in_state_dict_if_present(state, "module.")  # fix 2: repair old files
        model.load_state_dict(state)
        x = torch.randn(2, 16)
        assert torch.allclose(model(x), trained.module(x))
        print("ok: both checkpoints load strictly into the bare model", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: load the tensors whose shapes agree and leave the new head as initialised.

Same program as repro.py. The shape change is intended here (a new task with
a different number of classes), so the checkpoint is filtered first: every
tensor whose shape matches the model is loaded, the mismatched ones are
listed and skipped, and ``strict=False`` accepts the keys that are now
missing. This is what transformers' ``ignore_mismatched_sizes=True`` does. The
script checks that the backbone really came from the checkpoint.

CPU only, no downloads; the checkpoint is written to a temporary directory
(launcher: python).
"""

import os
import sys
import tempfile

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, num_classes: int) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def main() -> int:
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pretrained.pt")
        torch.save(Net(num_classes=10).state_dict(), path)

        model = Net(num_classes=5)  # the new task has 5 classes
        state_dict = torch.load(path, map_location="cpu", weights_only=True)
        # FIX: skip only the tensors whose shapes differ, and say which ones.
        own = model.state_dict()
        skipped = [k for k, v in state_dict.items() if k in own and v.shape != own[k].shape]
        for key in skipped:
            print(f"skipping {key}: checkpoint {tuple(state_dict[key].shape)}, model {tuple(own[key].shape)}")
        kept = {k: v for k, v in state_dict.items() if k not in skipped}
        result = model.load_state_dict(kept, strict=False)
        if result.unexpected_keys or set(result.missing_keys) != set(skipped):
            print(f"unexpected load result: {result}", file=sys.stderr)
            return 1
        if not torch.equal(model.backbone[0].weight, state_dict["backbone.0.weight"]):
            print("backbone was not loaded", file=sys.stderr)
            return 1
        print("loaded backbone; new head initialised for 5 classes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

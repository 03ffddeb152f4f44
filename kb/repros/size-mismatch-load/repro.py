"""Reproduce: "size mismatch for head.weight: copying a param with shape ...
from checkpoint, the shape in current model is ...".

A classifier is trained on a 10-class task and saved. A new run builds the
same architecture for a 5-class task and loads the old checkpoint to reuse the
backbone. ``load_state_dict`` (strict or not) refuses any tensor whose shape
differs from the model's, and the output head is 10x64 in the checkpoint but
5x64 in the model, so loading fails with "Error(s) in loading state_dict".

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
        model.load_state_dict(state_dict)  # BUG: head shapes differ
        print("loaded", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: the binary targets are converted to float.

A binary classifier is trained with ``BCEWithLogitsLoss``. The 0/1 labels come
out of the dataset as int64 (``torch.tensor([0, 1, ...])``), but binary and
regression losses compute in floating point and need float targets of the
input's dtype.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    x = torch.randn(16, 8)
    labels = torch.randint(0, 2, (16,)).float()  # FIX: float targets for BCE
    loss = nn.BCEWithLogitsLoss()(model(x).squeeze(1), labels)
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

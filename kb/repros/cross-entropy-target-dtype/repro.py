"""Reproduce: cross_entropy rejects float class labels ("expected target dtype to be Long ...").

Labels read from a CSV with pandas/NumPy arrive as float64 and are turned into
a tensor with ``torch.tensor(..., dtype=torch.float32)``, as the features
were. ``nn.CrossEntropyLoss`` wants class *indices* (int64) when the target
has one dimension less than the input; float targets are only accepted as
per-class probabilities with the input's shape. Older releases print
"expected scalar type Long but found Float" for the same mistake.

CPU only, no downloads (launcher: python).
"""

import sys

import numpy as np
import torch
from torch import nn


def main() -> int:
    rng = np.random.default_rng(0)
    features = rng.normal(size=(64, 8))
    labels = rng.integers(0, 3, size=64).astype(np.float64)  # as read from a CSV column
    x = torch.tensor(features, dtype=torch.float32)
    y = torch.tensor(labels, dtype=torch.float32)  # BUG: class ids as float
    model = nn.Linear(8, 3)
    criterion = nn.CrossEntropyLoss()
    loss = criterion(model(x), y)
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

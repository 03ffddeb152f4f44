"""Reproduce: "a Tensor with 8 elements cannot be converted to Scalar".

The loss is computed per sample (``reduction="none"`` to weight hard
examples later) and the logging line calls ``loss.item()``, which only works
for a tensor with exactly one element.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Linear(16, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    per_sample = nn.functional.cross_entropy(model(x), y, reduction="none")
    per_sample.mean().backward()
    optimizer.step()
    print(f"loss {per_sample.item():.4f}")  # BUG: 8 values, .item() needs one
    return 0


if __name__ == "__main__":
    sys.exit(main())

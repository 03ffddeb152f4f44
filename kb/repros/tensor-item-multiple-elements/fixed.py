"""Fixed: the per-sample losses are reduced before .item().

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
    print(f"loss {per_sample.mean().item():.4f}")  # FIX: reduce to one value first
    return 0


if __name__ == "__main__":
    sys.exit(main())

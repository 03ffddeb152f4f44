"""Reproduce: "IndexError: Target 3 is out of bounds." from cross_entropy on the CPU.

The labels come from a CSV column numbered 1..3 (human-friendly ids), the
classifier has 3 outputs, so valid class indices are 0, 1 and 2. Label 3 is
past the last class. On the CPU nll_loss checks each target and raises; on a
GPU the same data trips a device-side assert.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn

NUM_CLASSES = 3


def main() -> int:
    torch.manual_seed(0)
    x = torch.randn(32, 8)
    labels = torch.randint(1, NUM_CLASSES + 1, (32,))  # BUG: ids 1..3 from the CSV, not 0..2
    model = nn.Linear(8, NUM_CLASSES)
    loss = nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

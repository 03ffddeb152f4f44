"""Reproduce: "shape '[8, 768]' is invalid for input of size N".

The training loop reshapes the pooled features with a hard-coded batch size.
The dataset has 20 samples and the DataLoader yields batches of 8, 8 and 4:
the last, smaller batch holds 4 x 768 values, which cannot be viewed as
8 x 768.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

BATCH_SIZE = 8


def main() -> int:
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(20, 3, 16, 16), torch.randint(0, 5, (20,)))
    loader = DataLoader(data, batch_size=BATCH_SIZE, shuffle=False)
    encoder = nn.Sequential(nn.Conv2d(3, 768, 3, padding=1), nn.AdaptiveAvgPool2d(1))
    head = nn.Linear(768, 5)
    for step, (images, labels) in enumerate(loader):
        features = encoder(images).view(BATCH_SIZE, 768)  # BUG: assumes every batch is full
        loss = nn.functional.cross_entropy(head(features), labels)
        loss.backward()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

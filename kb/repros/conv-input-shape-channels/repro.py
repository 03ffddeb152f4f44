"""Reproduce: "Given groups=1, weight of size [16, 3, 3, 3], expected input[8, 1, 28, 28] to have 3 channels, but got 1 channels instead".

A small CNN built for RGB images (in_channels=3) is trained on a grayscale
dataset (one channel per image, as MNIST-style data and many medical or
document scans are). The first convolution's weight expects 3 input channels.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10)
    )
    images = torch.randn(8, 1, 28, 28)  # BUG: grayscale batch into an RGB model
    labels = torch.randint(0, 10, (8,))
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "Expected input batch_size (X) to match target batch_size (Y)".

A classifier flattens its feature map with a hard-coded feature count
(``view(-1, 16 * 4 * 4)``) that is half the real one (16 x 8 x 4 per sample
here). ``view(-1, ...)`` happily folds the surplus into the batch dimension,
so the model returns 16 rows of logits for 8 samples and the loss sees 16
predictions against 8 labels.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = self.features(x)  # (batch, 16, 8, 4) for 16x8 inputs
        x = x.view(-1, 16 * 4 * 4)  # BUG: -1 absorbs the wrong feature count into the batch
        return self.fc(x)


def main() -> int:
    torch.manual_seed(0)
    model = Net()
    images = torch.randn(8, 1, 16, 8)
    labels = torch.randint(0, 10, (8,))
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

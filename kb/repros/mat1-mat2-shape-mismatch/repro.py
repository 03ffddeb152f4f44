"""Reproduce: "mat1 and mat2 shapes cannot be multiplied".

A small CNN for 32x32 images whose first fully connected layer was sized for
another input: after two conv+pool stages the feature map is 16 x 5 x 5 = 400
values per sample, but the layer was declared with in_features=256 (computed
for 28x28 inputs). ``nn.Linear`` multiplies the flattened activations
(batch x 400) by its weight transposed (256 x 120) and the inner dimensions
disagree.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)  # BUG: sized for 28x28 inputs, the data is 32x32
        self.fc2 = nn.Linear(120, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc2(torch.relu(self.fc1(x)))


def main() -> int:
    torch.manual_seed(0)
    model = Net()
    images = torch.randn(8, 3, 32, 32)
    labels = torch.randint(0, 10, (8,))
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "optimizer got an empty parameter list".

A fine-tuning script freezes the pretrained backbone and intends to train a
new head, but it builds the optimizer from the parameters that require grad
*before* the head exists (and after freezing everything else), so the list it
passes is empty.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32))
        self.head = None

    def forward(self, x):
        return self.head(self.backbone(x))


def main() -> int:
    torch.manual_seed(0)
    model = Classifier()
    for p in model.backbone.parameters():
        p.requires_grad_(False)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-3)  # BUG: built before the head was added
    model.head = nn.Linear(32, 4)
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

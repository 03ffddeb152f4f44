"""Fixed: mask with the out-of-place ``masked_fill`` (no trailing underscore).

Same program as repro.py. The out-of-place call returns a new tensor and
leaves the softmax output that autograd saved untouched, so its version
counter stays at 0 and the backward pass succeeds. The gradient is the one the
program meant to compute: padded positions get weight 0 and no gradient.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


class AttentionPool(nn.Module):
    def __init__(self, dim: int = 16, classes: int = 3) -> None:
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.head = nn.Linear(dim, classes)

    def forward(self, x, pad_mask):
        weights = torch.softmax(self.score(x).squeeze(-1), dim=-1)  # (batch, seq)
        weights = weights.masked_fill(pad_mask, 0.0)  # FIX: new tensor, saved one untouched
        pooled = (weights.unsqueeze(-1) * x).sum(dim=1)
        return self.head(pooled)


def main() -> int:
    torch.manual_seed(0)
    model = AttentionPool()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(4, 10, 16)
    lengths = torch.tensor([10, 7, 5, 3])
    pad_mask = torch.arange(10)[None, :] >= lengths[:, None]
    labels = torch.tensor([0, 1, 2, 1])
    for step in range(2):
        loss = nn.functional.cross_entropy(model(x, pad_mask), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

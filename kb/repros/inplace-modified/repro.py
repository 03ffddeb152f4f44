"""Reproduce: "one of the variables needed for gradient computation has been
modified by an inplace operation".

A tiny attention-pooling classifier masks padded positions *after* the
softmax with the in-place ``masked_fill_``. Softmax saves its output for the
backward pass; the in-place fill bumps that tensor's version counter from 0 to
1, so when ``loss.backward()`` reaches SoftmaxBackward it finds the saved
tensor changed and refuses to compute a wrong gradient.

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
        weights.masked_fill_(pad_mask, 0.0)  # BUG: modifies the tensor softmax saved
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

"""Fixed: the masked per-token loss is reduced to a scalar before backward().

A per-token loss is computed with ``reduction="none"`` so that padding can be
masked out, but the masked losses are never reduced to one number before
``backward()``. Autograd can only seed the backward pass of a scalar with 1.0;
for a (batch x seq) tensor it would need an explicit ``gradient=``.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Linear(16, 50)
    hidden = torch.randn(4, 12, 16)
    targets = torch.randint(0, 50, (4, 12))
    mask = (torch.arange(12)[None, :] < torch.tensor([12, 10, 7, 3])[:, None]).float()
    logits = model(hidden)
    per_token = nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    loss = (per_token * mask).sum() / mask.sum()  # FIX: mean over the real tokens: a scalar
    loss.backward()
    print(f"loss {loss.sum().item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

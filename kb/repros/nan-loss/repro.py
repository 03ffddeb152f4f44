"""Reproduce: training diverges to inf/NaN; the gradient-norm check stops it.

A small regression model is trained with a learning rate far too high for
its unnormalised inputs. Each SGD step overshoots, the weights grow
geometrically, the loss overflows to inf and then NaN. The loop clips
gradients with ``error_if_nonfinite=True``, so instead of silently writing
NaN into the weights it raises
"The total norm of order 2.0 for gradients from `parameters` is non-finite".

CPU only, a few hundred tiny steps (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    x = torch.randn(256, 8) * 50.0  # unnormalised features
    y = x @ torch.randn(8, 1) + 3.0
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.003)  # BUG: far too high for these inputs
    for step in range(200):
        loss = nn.functional.mse_loss(model(x), y)
        print(f"step {step} loss {loss.item():.4g}", flush=True)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e30, error_if_nonfinite=True)
        optimizer.step()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: normalise the inputs, lower the learning rate, clip gradients.

Same program as repro.py. Standardised features, a learning rate suited to
them and a real clipping threshold keep every step finite; the same
``error_if_nonfinite=True`` check stays on and never fires.
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    x = torch.randn(256, 8) * 50.0
    y = x @ torch.randn(8, 1) + 3.0
    x = (x - x.mean(0)) / x.std(0)  # FIX: normalised inputs
    y = (y - y.mean()) / y.std()
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)  # FIX: sane learning rate
    for step in range(200):
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, error_if_nonfinite=True)  # FIX
        optimizer.step()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.4g}", flush=True)
    return 0 if torch.isfinite(loss) else 1


if __name__ == "__main__":
    sys.exit(main())

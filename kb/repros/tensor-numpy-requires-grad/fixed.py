"""Fixed: detach (and move to the CPU) before calling numpy().

An accuracy metric inside the training loop converts the model's logits to a
NumPy array. The logits are part of the autograd graph (they require grad),
and ``Tensor.numpy()`` refuses to hand out memory that autograd tracks.

CPU only, no downloads (launcher: python).
"""

import sys

import numpy as np
import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Linear(10, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(32, 10), torch.randint(0, 3, (32,))
    for step in range(2):
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        predictions = logits.detach().cpu().numpy().argmax(1)  # FIX: leave the graph first
        accuracy = float(np.mean(predictions == y.numpy()))
        print(f"step {step} loss {loss.item():.4f} acc {accuracy:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "a leaf Variable that requires grad is being used in an in-place operation".

A hand-written training loop updates its parameters with ``w -= lr * w.grad``
outside ``torch.no_grad()``. ``w`` is a leaf tensor that requires grad;
autograd would have to record the in-place update in the graph of ``w``
itself, which it forbids.

CPU only, no downloads (launcher: python).
"""

import sys

import torch


def main() -> int:
    torch.manual_seed(0)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([1.5, -2.0, 0.5]) + 0.3
    w = torch.zeros(3, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr = 0.1
    for step in range(3):
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        w -= lr * w.grad  # BUG: in-place update of a leaf that requires grad, graph still recording
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

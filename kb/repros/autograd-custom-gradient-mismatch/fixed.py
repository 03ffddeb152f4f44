"""Fixed: backward returns one gradient per forward input (None for the non-tensor threshold).

A straight-through estimator is written as a custom ``torch.autograd.Function``
whose ``forward`` takes two inputs (the tensor and a threshold). ``backward``
must return one gradient per ``forward`` input (``None`` for inputs that need
none), but it returns only the gradient for the tensor.

CPU only, no downloads (launcher: python).
"""

import sys

import torch


class ClampedSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, threshold):
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return (x > threshold).float()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1).float(), None  # FIX: None for the threshold


def main() -> int:
    torch.manual_seed(0)
    w = torch.randn(16, requires_grad=True)
    loss = (ClampedSTE.apply(w, 0.0) * torch.randn(16)).sum()
    loss.backward()
    print(w.grad.norm().item())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "RuntimeError: Function 'PowBackward0' returned nan values in its 0th output."

A loss uses ``torch.sqrt`` of a squared distance. For a pair of identical
points the distance is exactly 0, where the derivative of sqrt is infinite;
multiplied by the zero gradient of the square it becomes 0 * inf = nan: SqrtBackward0 returns inf, and the next function
back, PowBackward0 (the square), is the first to return nan.
The forward pass and the loss value look fine; only the gradients are nan.
With anomaly detection on (as people enable it to hunt the nan), autograd
checks every backward function's output and names the first one that
produced nan, after printing the forward traceback of the op.

CPU only, a few tensors (launcher: python).
"""

import sys

import torch


def pairwise_distance_loss(points: torch.Tensor) -> torch.Tensor:
    diff = points[:, None, :] - points[None, :, :]
    dist = torch.sqrt((diff**2).sum(-1))  # BUG: d sqrt(x)/dx is inf at x = 0 (the diagonal)
    return dist.mean()


def main() -> int:
    torch.manual_seed(0)
    points = torch.randn(4, 3, requires_grad=True)
    with torch.autograd.detect_anomaly():
        loss = pairwise_distance_loss(points)
        print(f"loss {loss.item():.4f}", flush=True)
        loss.backward()
    print("grad has nan:", torch.isnan(points.grad).any().item())
    return 0


if __name__ == "__main__":
    sys.exit(main())

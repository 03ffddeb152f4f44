"""Fixed: keep sqrt away from 0 so its derivative stays finite.

Same program as repro.py. Adding a small epsilon inside the square root
(or using ``torch.cdist`` / ``torch.linalg.vector_norm``, whose backward
defines the gradient at 0) gives finite gradients everywhere.
"""

import sys

import torch


def pairwise_distance_loss(points: torch.Tensor) -> torch.Tensor:
    diff = points[:, None, :] - points[None, :, :]
    dist = torch.sqrt((diff**2).sum(-1) + 1e-12)  # FIX: finite derivative at 0
    return dist.mean()


def main() -> int:
    torch.manual_seed(0)
    points = torch.randn(4, 3, requires_grad=True)
    with torch.autograd.detect_anomaly():
        loss = pairwise_distance_loss(points)
        print(f"loss {loss.item():.4f}", flush=True)
        loss.backward()
    has_nan = torch.isnan(points.grad).any().item()
    print("grad has nan:", has_nan)
    return 1 if has_nan else 0


if __name__ == "__main__":
    sys.exit(main())

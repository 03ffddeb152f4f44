"""Reproduce: "AssertionError: Torch not compiled with CUDA enabled".

A training script written for a GPU machine moves its model to "cuda"
unconditionally. The installed torch is a CPU-only build (the default wheel
on Windows/macOS, the ``+cpu`` wheel, or a CPU wheel pulled in by another
package's requirements), so the first CUDA call fails in
``torch.cuda._lazy_init``.

Runs on any machine with the CPU build of torch (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    print(f"torch {torch.__version__}, CUDA build: {torch.version.cuda}", flush=True)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
    model = model.to("cuda")  # BUG: assumes a CUDA build and a GPU
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 16, device="cuda"), torch.randint(0, 2, (8,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return 0


if __name__ == "__main__":
    sys.exit(main())

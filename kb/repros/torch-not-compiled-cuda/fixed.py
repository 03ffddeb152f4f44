"""Fixed: pick the device from what this torch build can actually use.

Same program as repro.py. The real fix on a GPU machine is to install a CUDA
build of torch (see the article); the code-side half of the fix, shown here,
is never to hard-code "cuda": ask ``torch.cuda.is_available()`` and fall back
to the CPU (or fail early with a clear message), so the same script runs on
either build.

Runs on any machine with the CPU build of torch (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    print(f"torch {torch.__version__}, CUDA build: {torch.version.cuda}", flush=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # FIX
    print(f"training on {device}", flush=True)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 16, device=device), torch.randint(0, 2, (8,), device=device)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    print(f"loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

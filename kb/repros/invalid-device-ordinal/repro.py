"""Reproduce: "CUDA error: invalid device ordinal".

A script written for a two-GPU workstation hard-codes the second GPU for the
model (``cuda:1``). On a machine, container or job allocation that exposes one
GPU (or with CUDA_VISIBLE_DEVICES=0), device 1 does not exist.

Needs exactly one visible CUDA GPU (launcher: python); on machines with more
GPUs set CUDA_VISIBLE_DEVICES=0 to see the failure.
"""

import sys

import torch
from torch import nn


def main() -> int:
    print(f"visible GPUs: {torch.cuda.device_count()}", flush=True)
    device = torch.device("cuda:1")  # BUG: hard-coded ordinal of another machine
    model = nn.Linear(16, 4).to(device)
    x = torch.randn(8, 16, device=device)
    print(model(x).sum().item())
    return 0


if __name__ == "__main__":
    sys.exit(main())

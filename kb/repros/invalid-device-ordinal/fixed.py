"""Fixed: the device index comes from LOCAL_RANK and is checked against the visible GPUs.

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
    local_rank = int(__import__("os").environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local_rank % torch.cuda.device_count())  # FIX: an ordinal that exists
    model = nn.Linear(16, 4).to(device)
    x = torch.randn(8, 16, device=device)
    print(model(x).sum().item())
    return 0


if __name__ == "__main__":
    sys.exit(main())

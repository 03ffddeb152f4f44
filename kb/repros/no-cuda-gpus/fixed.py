"""Fixed: expose GPUs that exist (or leave CUDA_VISIBLE_DEVICES to the launcher).

Same program as repro.py. The visible-device list is taken from what the
machine has: here the first GPU. In real jobs, drop hard-coded
``os.environ["CUDA_VISIBLE_DEVICES"] = ...`` lines and let the scheduler or
the command line set it.

Requires: 1 CUDA GPU and a CUDA build of torch (launcher: python).
"""

import os
import sys

os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # FIX: an index that exists (or do not set it at all)

import torch  # noqa: E402
from torch import nn  # noqa: E402


def main() -> int:
    if torch.version.cuda is None:
        print("this reproduction needs a CUDA build of torch", file=sys.stderr)
        return 2
    print(f"torch.cuda.is_available() = {torch.cuda.is_available()}", flush=True)
    model = nn.Linear(16, 4).cuda()
    print(model(torch.randn(2, 16, device="cuda")).shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "RuntimeError: No CUDA GPUs are available".

The machine has a GPU and a working driver, but the process is not allowed
to see it: the script (like many research repos) sets
``CUDA_VISIBLE_DEVICES`` to an index that does not exist on this machine
before torch initialises CUDA. The CUDA runtime then enumerates zero
devices and torch's lazy CUDA initialisation fails at the first ``.cuda()``.
An empty value, a scheduler that exports the wrong list, or a container
without GPU access look the same.

Requires: 1 CUDA GPU and a CUDA build of torch (launcher: python).
"""

import os
import sys

os.environ["CUDA_VISIBLE_DEVICES"] = "7"  # BUG: copied from a multi-GPU server; this box has fewer GPUs

import torch  # noqa: E402
from torch import nn  # noqa: E402


def main() -> int:
    if torch.version.cuda is None:
        print("this reproduction needs a CUDA build of torch", file=sys.stderr)
        return 2
    print(f"CUDA_VISIBLE_DEVICES={os.environ['CUDA_VISIBLE_DEVICES']!r}", flush=True)
    print(f"torch.cuda.is_available() = {torch.cuda.is_available()}", flush=True)
    model = nn.Linear(16, 4).cuda()
    print(model(torch.randn(2, 16, device="cuda")).shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: compile only with a backend whose toolchain is present.

Same program and environment as repro.py. The real fix is to install the
compiler (``apt-get install g++``, or Triton for GPUs); where that is not
possible, a backend that needs no code generation keeps the script working:
``aot_eager`` still traces the graph (catching graph breaks and
dynamic-shape issues) but runs the ops eagerly.
"""

import os
import shutil
import sys

os.environ["CXX"] = "/opt/toolchain/bin/g++"  # same broken toolchain as repro.py

import torch  # noqa: E402
from torch import nn  # noqa: E402


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    have_cxx = shutil.which(os.environ.get("CXX", "g++")) is not None
    backend = "inductor" if have_cxx else "aot_eager"  # FIX: do not ask inductor without a compiler
    print(f"compiling with backend={backend}", flush=True)
    compiled = torch.compile(model, backend=backend)
    out = compiled(torch.randn(8, 16))
    out.sum().backward()
    print("output", tuple(out.shape), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

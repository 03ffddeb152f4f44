"""Reproduce: torch.compile's backend fails (BackendCompilerFailed / InductorError).

The default backend, inductor, generates C++ (CPU) or Triton (GPU) code and
compiles it on the fly, so it needs a working toolchain at run time. Here
the C++ compiler it is told to use (``CXX``, as a slim image or a module
system might set it) does not exist, the situation of a machine without g++.
Dynamo traces the model fine; the backend then fails, and torch reports the
inner error wrapped: "torch._inductor.exc.InductorError: InvalidCxxCompiler:
No working C++ compiler found" (torch >= 2.7; older releases print
"torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:").

CPU only (launcher: python). Import and tracing take ~15 s.
"""

import os
import sys

os.environ["CXX"] = "/opt/toolchain/bin/g++"  # BUG: the compiler inductor needs is not there

import torch  # noqa: E402
from torch import nn  # noqa: E402


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    compiled = torch.compile(model)
    out = compiled(torch.randn(8, 16))
    out.sum().backward()
    print("output", tuple(out.shape), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

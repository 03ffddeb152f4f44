"""Reproduce: torch.compile "TritonMissing: Cannot find a working triton installation".

``torch.compile`` (backend ``inductor``) generates Triton kernels for every
CUDA graph it compiles. In an environment where the ``triton`` package is
missing (a torch installed with ``--no-deps``, from a channel without
triton, or triton uninstalled by another package's requirements), the first
call of a compiled function on a CUDA tensor fails when inductor picks its
GPU backend.

The CUDA builds of torch on Linux install triton, so the script first takes
it away the way a missing install looks to the interpreter:
``sys.modules["triton"] = None`` makes ``import triton`` fail, before torch is
imported. The compiled function itself is ordinary user code.

Requires: 1 CUDA GPU (launcher: python).
"""

import sys

sys.modules["triton"] = None  # type: ignore[assignment]  # stands for: triton not installed

import torch  # noqa: E402


def gelu_mlp(x: torch.Tensor, w1: torch.Tensor, w2: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x @ w1) @ w2


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    x = torch.randn(64, 128, device="cuda")
    w1 = torch.randn(128, 256, device="cuda") / 16
    w2 = torch.randn(256, 128, device="cuda") / 16
    compiled = torch.compile(gelu_mlp)  # inductor: Triton code for CUDA
    out = compiled(x, w1, w2)
    print("compiled output", tuple(out.shape), "checksum", out.sum().item())
    return 0


if __name__ == "__main__":
    sys.exit(main())

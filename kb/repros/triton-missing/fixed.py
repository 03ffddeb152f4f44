"""Fixed: torch with the triton it was built with; torch.compile generates its kernels.

The article's fix: reinstall torch so pip brings its matching triton (or,
where Triton cannot run, ``backend="aot_eager"``). This environment's CUDA
torch has its triton; the script no longer hides it, compiles the same
function, and checks the compiled result against eager mode.

Requires: 1 CUDA GPU (launcher: python).
"""

import sys

import torch


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
    close = torch.allclose(out, gelu_mlp(x, w1, w2), rtol=1e-3, atol=1e-3)
    print("compiled output", tuple(out.shape), "matches eager:", close)
    return 0 if close else 1


if __name__ == "__main__":
    sys.exit(main())

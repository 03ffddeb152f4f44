"""Reproduce: "CUDA error: unspecified launch failure" (cudaErrorLaunchFailure, 719).

A fused kernel checks its input on the GPU and aborts when it is outside
what it was compiled for, the way CUDA libraries guard their kernels with
``__trap()``: here a Triton row-sum kernel built for rows of at most 4096
elements traps (PTX ``trap``) when it is handed a longer row. A kernel that
ends this way terminates abnormally without a more specific code, so the
CUDA runtime reports ``unspecified launch failure``; the context is left in
the sticky error state and torch raises at the next synchronising call.

Requires: 1 CUDA GPU, a CUDA build of torch with Triton (launcher: python).
"""

import sys

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - CPU-only environments
    triton = None

MAX_COLS = 4096  # what the kernel was compiled for

if triton is not None:

    @triton.jit
    def guarded_row_sum(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        too_long = tl.zeros([BLOCK], dtype=tl.int32) + (n_cols > BLOCK).to(tl.int32)
        # the kernel's own guard: abort (PTX trap) when the row does not fit
        guard = tl.inline_asm_elementwise(
            "{ .reg .pred p; setp.ne.s32 p, $1, 0; @p trap; mov.u32 $0, $1; }",
            "=r,r",
            [too_long],
            dtype=tl.int32,
            is_pure=False,
            pack=1,
        )
        values = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        values += guard.to(tl.float32) * 0.0  # keeps the guard in the compiled kernel
        tl.store(out_ptr + row, tl.sum(values, axis=0))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
    guarded_row_sum[(x.shape[0],)](x, out, x.shape[1], BLOCK=MAX_COLS)
    return out


def main() -> int:
    if not torch.cuda.is_available() or triton is None:
        print("this reproduction needs a CUDA GPU and Triton", file=sys.stderr)
        return 2
    x = torch.randn(64, 6000, device="cuda")  # BUG: longer rows than the kernel supports
    total = row_sum(x)
    print("checksum", total.sum().item())  # synchronises: the failure is reported here
    return 0


if __name__ == "__main__":
    sys.exit(main())

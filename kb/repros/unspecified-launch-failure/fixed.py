"""Fixed: the kernel is only given rows it supports.

The article's fix for a faulting kernel: find the call that really failed
(``CUDA_LAUNCH_BLOCKING=1`` names it) and keep its inputs inside what it
supports. Same guarded kernel as repro.py; rows longer than it was compiled
for are summed in pieces of at most 4096 elements. The script checks the
result against ``torch.sum``.

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
    x = torch.randn(64, 6000, device="cuda")
    pieces = [row_sum(part.contiguous()) for part in x.split(MAX_COLS, dim=1)]  # FIX: fits the kernel
    total = torch.stack(pieces).sum(0)
    close = torch.allclose(total, x.sum(1), rtol=1e-4, atol=1e-3)
    print("checksum", total.sum().item(), "matches torch.sum:", close)
    return 0 if close else 1


if __name__ == "__main__":
    sys.exit(main())

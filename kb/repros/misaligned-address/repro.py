"""Reproduce: "CUDA error: misaligned address".

A hand-written Triton kernel (the kind of fused op projects add for speed)
copies fp16 rows with 16-byte vector loads and stores. It tells the compiler
that every row starts on a 16-byte boundary (``tl.multiple_of(start, 8)``:
8 fp16 elements), which holds for whole tensors but not for a view: the
caller passes the rows of ``x[:, 3:]``, a slice whose start is only 2-byte
aligned. The GPU faults on the first vector load; the context is poisoned and
torch reports the error at the next synchronising call.

Requires: 1 CUDA GPU, a CUDA build of torch with Triton (launcher: python).
"""

import sys

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - CPU-only environments
    triton = None


if triton is not None:

    @triton.jit
    def copy_rows(src_ptr, dst_ptr, row_stride, start, dim: tl.constexpr):
        row = tl.program_id(0)
        begin = tl.multiple_of(row * row_stride + start, 8)  # BUG: assumes 16-byte aligned rows
        cols = tl.max_contiguous(tl.arange(0, dim), dim)
        values = tl.load(src_ptr + begin + cols)
        tl.store(dst_ptr + row * dim + cols, values)


def copy_view(base: torch.Tensor, start: int, dim: int) -> torch.Tensor:
    """Copy ``base[:, start:start + dim]`` with the vectorised kernel."""
    out = torch.empty(base.shape[0], dim, dtype=base.dtype, device=base.device)
    copy_rows[(base.shape[0],)](base, out, base.stride(0), start, dim=dim)
    return out


def main() -> int:
    if not torch.cuda.is_available() or triton is None:
        print("this reproduction needs a CUDA GPU and Triton", file=sys.stderr)
        return 2
    base = torch.randn(256, 1024 + 8, dtype=torch.float16, device="cuda")
    out = copy_view(base, start=3, dim=1024)  # BUG: x[:, 3:] starts 6 bytes into a row
    print("checksum", out.float().sum().item())  # synchronises: the fault is reported here
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: the view is made contiguous (an aligned copy) before the vectorised kernel.

The article's fix for a kernel that assumes aligned inputs: give it a tensor
PyTorch allocated (``x[:, 3:].contiguous()`` starts on an aligned address) or
a slice at an aligned offset. Same kernel as repro.py (its alignment hint
unchanged); the script checks the copy against PyTorch's own slice.

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
    view = base[:, 3 : 3 + 1024].contiguous()  # FIX: an aligned copy of the slice
    out = copy_view(view, start=0, dim=1024)
    torch.cuda.synchronize()
    same = torch.equal(out, base[:, 3 : 3 + 1024])
    print("checksum", out.float().sum().item(), "equal to the slice:", same)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

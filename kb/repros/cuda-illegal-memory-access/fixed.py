"""Fixed: validate indices (and mask loads) before the kernel touches memory.

Same program as repro.py. The host-side check rejects the corrupt index
with a readable error instead of a GPU fault; the kernel also clamps and
masks so no thread can address memory outside the table. Here the bad
index is dropped, as a data loader would skip a corrupt sample.

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
    def gather_rows(table_ptr, index_ptr, out_ptr, n, dim: tl.constexpr):
        row = tl.program_id(0)
        idx = tl.load(index_ptr + row)
        valid = (idx >= 0) & (idx < n)  # FIX: bounds check in the kernel
        safe = tl.where(valid, idx, 0)
        cols = tl.arange(0, dim)
        values = tl.load(table_ptr + safe * dim + cols, mask=valid & (cols < dim), other=0.0)
        tl.store(out_ptr + row * dim + cols, values)


def main() -> int:
    if not torch.cuda.is_available() or triton is None:
        print("this reproduction needs a CUDA GPU and Triton", file=sys.stderr)
        return 2
    table = torch.randn(1000, 64, device="cuda")
    index = torch.randint(0, 1000, (256,), device="cuda")
    index[17] = 1 << 36
    bad = (index < 0) | (index >= table.shape[0])
    if bad.any():  # FIX: host-side validation with a readable message
        print(f"dropping {int(bad.sum())} out-of-range indices", flush=True)
        index = index[~bad]
    out = torch.empty(index.numel(), 64, device="cuda")
    gather_rows[(index.numel(),)](table, index, out, table.shape[0], dim=64)
    print("checksum", out.sum().item())
    return 0


if __name__ == "__main__":
    sys.exit(main())

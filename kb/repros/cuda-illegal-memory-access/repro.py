"""Reproduce: "CUDA error: an illegal memory access was encountered".

A custom Triton gather kernel (the kind of hand-written op that projects add
for speed) reads ``table[index]`` without checking the index against the
table size, unlike PyTorch's own indexing ops, which assert. One corrupt
index far outside the table makes a GPU thread read unmapped memory; the
kernel faults, the CUDA context is poisoned, and the error surfaces
asynchronously at the next synchronising call.

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
        idx = tl.load(index_ptr + row)  # BUG: idx is never checked against the table size
        cols = tl.arange(0, dim)
        values = tl.load(table_ptr + idx * dim + cols)
        tl.store(out_ptr + row * dim + cols, values)


def main() -> int:
    if not torch.cuda.is_available() or triton is None:
        print("this reproduction needs a CUDA GPU and Triton", file=sys.stderr)
        return 2
    table = torch.randn(1000, 64, device="cuda")
    index = torch.randint(0, 1000, (256,), device="cuda")
    index[17] = 1 << 36  # a corrupt id, e.g. from a broken data file
    out = torch.empty(256, 64, device="cuda")
    gather_rows[(256,)](table, index, out, table.shape[0], dim=64)
    print("checksum", out.sum().item())  # synchronises: the fault is reported here
    return 0


if __name__ == "__main__":
    sys.exit(main())

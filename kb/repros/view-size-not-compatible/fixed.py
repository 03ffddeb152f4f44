"""Fixed: reshape (or .contiguous().view) instead of view after transpose.

Multi-head attention merges the heads back after ``transpose(1, 2)``. The
transposed tensor shares storage with the original and is no longer
contiguous in memory, so ``.view()`` cannot reinterpret it as (batch, seq,
dim) without copying, and refuses.

CPU only, no downloads (launcher: python).
"""

import sys

import torch


def merge_heads(x):
    b, h, t, d = x.shape
    return x.transpose(1, 2).reshape(b, t, h * d)  # FIX: reshape copies when it must


def main() -> int:
    torch.manual_seed(0)
    heads = torch.randn(2, 4, 10, 8, requires_grad=True)
    merged = merge_heads(heads)
    merged.sum().backward()
    print(merged.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())

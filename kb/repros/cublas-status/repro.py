"""Reproduce: cuBLAS cannot create its handle on a GPU with no memory left.

PyTorch creates a cuBLAS handle per device and thread lazily, at the first
matrix product. ``cublasCreate`` needs a little device memory of its own,
outside PyTorch's caching allocator, so when the card is already full (this
process's cached tensors, another job on the same GPU, a leak) the first
matmul fails with ``CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling
`cublasCreate(handle)``` (or ``CUBLAS_STATUS_ALLOC_FAILED``) instead of a
readable ``CUDA out of memory``: an out-of-memory error in disguise.

The script allocates the operands, then fills the GPU with PyTorch tensors
until the caching allocator gets nothing more, and only then runs its first
matrix product.

One GPU (launcher: python).
"""

import sys

import torch

MiB = 1 << 20


def fill_device(device: torch.device, headroom: int = 0) -> list[torch.Tensor]:
    """Allocate until less than ``headroom`` bytes (plus one chunk) are left."""
    hog: list[torch.Tensor] = []
    chunk = 1 << 30
    while chunk >= 4096:  # down to small blocks: the allocator's 2 MiB segments get filled too
        free, _total = torch.cuda.mem_get_info(device)
        if free - chunk < headroom:
            chunk //= 2
            continue
        try:
            hog.append(torch.empty(chunk, dtype=torch.uint8, device=device))
        except torch.OutOfMemoryError:
            chunk //= 2
    return hog


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    device = torch.device("cuda:0")
    a = torch.randn(512, 512, device=device)
    b = torch.randn(512, 512, device=device)
    out = torch.empty(512, 512, device=device)

    hog = fill_device(device)  # a full card: no room left for cuBLAS's own allocations
    free, total = torch.cuda.mem_get_info(device)
    print(f"{len(hog)} blocks held, {free / MiB:.0f} MiB of {total / MiB:.0f} MiB free", flush=True)

    torch.mm(a, b, out=out)  # first GEMM: cublasCreate(handle) runs here
    torch.cuda.synchronize()
    print(f"checksum {out.sum().item():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

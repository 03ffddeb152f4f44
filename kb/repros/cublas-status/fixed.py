"""The fix applied: leave cuBLAS room on the card (and create its handle early).

Two things the article recommends, both applied here: the first GEMM runs
before the big allocations (the handle and its workspace then exist), and the
job keeps headroom instead of filling the GPU to the last megabyte (smaller
batch, fewer cached blocks, no second process on the same card). The script
does what ``repro.py`` does otherwise and the product succeeds.

One GPU (launcher: python).
"""

import sys

import torch

MiB = 1 << 20
HEADROOM = 1 << 30  # 1 GiB left for cuBLAS, cuDNN, NCCL and the CUDA context


def fill_device(device: torch.device, headroom: int = 0) -> list[torch.Tensor]:
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
    torch.mm(a[:8, :8], b[:8, :8])  # warm-up: creates the cuBLAS handle and workspace now

    hog = fill_device(device, headroom=HEADROOM)
    free, total = torch.cuda.mem_get_info(device)
    print(f"{len(hog)} blocks held, {free / MiB:.0f} MiB of {total / MiB:.0f} MiB free", flush=True)

    torch.mm(a, b, out=out)
    torch.cuda.synchronize()
    print(f"checksum {out.sum().item():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

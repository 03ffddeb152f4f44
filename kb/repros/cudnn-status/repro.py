"""Reproduce: "cuDNN error: CUDNN_STATUS_..." on a GPU that is already full.

The most common cause of a cuDNN status error: the card is nearly full when
the first convolution runs. PyTorch's own allocator still holds cached,
free blocks, so the convolution's output tensor fits; but cuDNN creates its
handle (and loads its kernels) with memory of its own, straight from the
driver, and the driver has none left. The first ``conv2d`` then fails with
a cuDNN status (``CUDNN_STATUS_NOT_INITIALIZED`` / ``ALLOC_FAILED`` /
``INTERNAL_ERROR`` depending on the cuDNN release) instead of "CUDA out of
memory".

The "other" memory is a large tensor standing for what fills real cards (a
second model copy, a data cache kept on the GPU, another process): the
script takes all but a little of the free memory with it, then takes the
rest in small blocks and hands those back to PyTorch's cache.

Requires: 1 CUDA GPU with cuDNN (launcher: python).
"""

import sys

import torch

MIB = 2**20


def fill_device(leave_mib: int) -> list[torch.Tensor]:
    """Hold all device memory but ``leave_mib``; some blocks end in PyTorch's cache.

    Large, then 10 MiB, then 1 MiB tensors (PyTorch serves those from 2 MiB
    segments), so that under 2 MiB stays with the driver; six of the 10 MiB
    blocks are then freed: PyTorch keeps them cached, free for its own
    tensors but not for anyone else.
    """
    held: list[torch.Tensor] = []
    cached: list[torch.Tensor] = []
    for block, segment in ((1024 * MIB, 1024 * MIB), (10 * MIB, 10 * MIB), (MIB, 2 * MIB)):
        try:
            while torch.cuda.mem_get_info()[0] >= leave_mib * MIB + segment:
                tensor = torch.empty(block, dtype=torch.uint8, device="cuda")
                (cached if block == 10 * MIB and len(cached) < 6 else held).append(tensor)
        except torch.OutOfMemoryError:
            pass
    cached.clear()  # free for PyTorch's tensors, not returned to the driver
    free, _ = torch.cuda.mem_get_info()
    print(f"driver-free memory left: {free / MIB:.0f} MiB", flush=True)
    return held


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    torch.backends.cudnn.enabled = True
    images = torch.randn(8, 3, 64, 64, device="cuda")
    weight = torch.randn(16, 3, 3, 3, device="cuda")
    held = fill_device(leave_mib=0)  # BUG: nothing left for cuDNN's own allocations
    out = torch.nn.functional.conv2d(images, weight, padding=1)
    print("conv output", tuple(out.shape), "checksum", out.sum().item(), len(held))
    return 0


if __name__ == "__main__":
    sys.exit(main())

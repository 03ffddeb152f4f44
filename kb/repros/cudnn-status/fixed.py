"""Fixed: headroom left on the card for cuDNN's own allocations.

The article's fix for the out-of-memory family of cuDNN statuses: make room
on the GPU (a smaller batch, fewer tensors kept on the device, nothing else
on the card). Same script as repro.py, but the large tensor leaves 2 GiB of
the card to the driver; cuDNN creates its handle and the convolution runs.
The script checks the result against the convolution computed on the CPU.

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
    held = fill_device(leave_mib=2048)  # FIX: headroom for cuDNN's handle and kernels
    out = torch.nn.functional.conv2d(images, weight, padding=1)
    expected = torch.nn.functional.conv2d(images.cpu(), weight.cpu(), padding=1)
    close = torch.allclose(out.cpu(), expected, rtol=1e-3, atol=1e-3)
    print("conv output", tuple(out.shape), "matches the CPU:", close, len(held))
    return 0 if close else 1


if __name__ == "__main__":
    sys.exit(main())

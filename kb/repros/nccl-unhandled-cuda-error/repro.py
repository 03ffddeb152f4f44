"""Reproduce: "NCCL error ... unhandled cuda error" with "Cuda failure 'out of memory'".

The first collective creates the NCCL communicator, and NCCL allocates its
device buffers then, with memory of its own (cudaMalloc / cuMem), not from
PyTorch's cache. A training script that loads its model and data onto the
GPU first and only then runs its first collective can leave NCCL nothing:
the allocation fails, NCCL returns ``ncclUnhandledCudaError`` ("Call to CUDA
function failed", last error ``Cuda failure 'out of memory'``) and PyTorch
raises it from ``all_reduce``.

One process, one GPU, a real NCCL process group (world size 1, TCP store on
loopback). The "model" is a large tensor that takes all but a sliver of the
free memory; the last small blocks are handed back to PyTorch's cache, so
PyTorch's own tensors still fit and only NCCL's allocation fails.
``NCCL_DEBUG=WARN`` makes NCCL print its own line about the failed call.

Requires: 1 CUDA GPU (launcher: python).
"""

import os
import socket
import sys
from datetime import timedelta

os.environ.setdefault("NCCL_DEBUG", "WARN")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

MIB = 2**20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    torch.cuda.set_device(0)
    dist.init_process_group(
        "nccl",
        init_method=f"tcp://127.0.0.1:{free_port()}",
        rank=0,
        world_size=1,
        timeout=timedelta(seconds=60),
    )
    try:
        grads = torch.ones(1024, device="cuda")
        model = fill_device(leave_mib=0)  # BUG: the model took the memory NCCL needs
        dist.all_reduce(grads)  # creates the communicator: NCCL allocates here
        torch.cuda.synchronize()
        print("all_reduce done:", grads[0].item(), len(model))
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

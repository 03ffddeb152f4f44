"""Fixed: the communicator is created before the GPU fills up.

The article's fix for ``Last error: Cuda failure 'out of memory'``: let
NCCL allocate before the memory is taken (run a first collective, or pass
``device_id`` to ``init_process_group`` so the communicator is created at
once, before loading the model) and leave headroom. Same process group and
"model" as repro.py; a first ``all_reduce`` creates the communicator, then
the model fills the card, and the training-time ``all_reduce`` succeeds. The
script checks its result.

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
        warmup = torch.zeros(1, device="cuda")
        dist.all_reduce(warmup)  # FIX: NCCL allocates its buffers before the model loads
        torch.cuda.synchronize()
        model = fill_device(leave_mib=0)
        dist.all_reduce(grads)
        torch.cuda.synchronize()
        ok = bool(torch.all(grads == 1.0))
        print("all_reduce done:", grads[0].item(), "correct:", ok, len(model))
        if not ok:
            return 1
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

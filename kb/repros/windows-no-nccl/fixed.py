"""Fixed: choose a backend this build has (NCCL where available, else gloo).

Same program as repro.py. ``dist.is_nccl_available()`` is False on Windows,
macOS and CPU-only builds; gloo is built into all of them (on Windows it is
the only backend). On Linux with a CUDA build this still picks NCCL.
"""

import os
import sys

import torch
import torch.distributed as dist


def main() -> int:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29582")
    backend = "nccl" if dist.is_nccl_available() and torch.cuda.is_available() else "gloo"  # FIX
    print(f"torch {torch.__version__}, backend: {backend}", flush=True)
    dist.init_process_group(backend=backend, rank=0, world_size=1)
    tensor = torch.ones(4)
    dist.all_reduce(tensor)
    print(f"all_reduce -> {tensor.tolist()}", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

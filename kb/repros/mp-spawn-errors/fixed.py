"""Fixed: pass ``args`` as a tuple, and let ``fn`` take the process index first.

Same spawn as repro.py with ``args=("config.yaml",)``: every child calls
``worker(i, "config.yaml")``.

CPU only, two spawned processes (launcher: python).
"""

import sys

import torch.multiprocessing as mp


def worker(rank: int, config_path: str) -> None:
    assert config_path == "config.yaml"
    print(f"rank {rank} reads {config_path}", flush=True)


def main() -> int:
    mp.spawn(worker, args=("config.yaml",), nprocs=2)  # the trailing comma makes a tuple
    print("ok: both workers finished", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

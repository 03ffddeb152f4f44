"""Fixed: no per-worker cache and fewer workers keep every worker under the memory budget.

Each DataLoader worker keeps every decoded sample in a per-process cache
(a dict on the dataset object). With 4 workers, each cache grows until the
machine or the container runs out of memory and the kernel's OOM killer
sends SIGKILL to the biggest process, usually a worker. The main process only
sees that the worker vanished.

The real OOM killer cannot be triggered safely in a test sandbox, so this
script enforces a small memory budget itself: a worker whose resident memory
exceeds MEMORY_BUDGET_MB sends itself SIGKILL, exactly the signal the kernel
would send. Everything the main process prints is what a real OOM kill
produces.

CPU only, no downloads (launcher: python).
"""

import os
import resource
import signal
import sys

import torch
from torch.utils.data import DataLoader, Dataset

MEMORY_BUDGET_MB = 600  # stands in for the container's memory limit
SAMPLE_MB = 16


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Images(Dataset):
    def __init__(self, n: int = 256) -> None:
        self.n = n
        self.cache: dict[int, torch.Tensor] = {}

    def __len__(self) -> int:
        return self.n

    def decode(self, index: int) -> torch.Tensor:
        return torch.full((SAMPLE_MB * 1024 * 1024 // 4,), float(index))

    def __getitem__(self, index: int) -> torch.Tensor:
        sample = self.decode(index)  # FIX: decode on demand, keep nothing per worker
        if rss_mb() > MEMORY_BUDGET_MB:
            os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's OOM killer does
        return sample[:1024].clone()


def main() -> int:
    loader = DataLoader(Images(), batch_size=8, num_workers=2)  # FIX: fewer workers, less memory
    total = 0.0
    for step, batch in enumerate(loader):
        total += batch.sum().item()
        if step % 8 == 0:
            print(f"step {step}", flush=True)
    print(f"done {total:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: DataLoader workers run out of file descriptors ("Too many open files").

With the default ``file_descriptor`` sharing strategy on Linux, every tensor
a DataLoader worker sends to the main process travels as an open file
descriptor of a shared-memory segment, and the main process keeps that
descriptor open for as long as the tensor (or any view of it) is alive. A
loop that keeps what the loader returns (predictions, features, whole
batches appended to a list) holds one descriptor per tensor. Once the
process reaches its open-file limit (``ulimit -n``, often 1024, sometimes
less in containers), the next descriptor cannot be received: the DataLoader
raises "Too many open files. Communication with the workers is no longer
possible" (older releases: ``RuntimeError: received 0 items of ancdata`` or
``OSError: [Errno 24] Too many open files``).

The script lowers its own soft RLIMIT_NOFILE to 256, the situation of a
tight ``ulimit -n``, instead of creating thousands of tensors.

CPU only, one process plus its DataLoader workers (launcher: python).
"""

import resource
import sys

import torch
from torch.utils.data import DataLoader, Dataset

OPEN_FILES = 256  # the soft limit, as after `ulimit -n 256`


class Crops(Dataset):
    """Each sample is a dict of small tensors (image crops with their boxes and ids)."""

    def __len__(self) -> int:
        return 4096

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return {
            "crop": torch.full((3, 8, 8), float(index)),
            "box": torch.tensor([index, index, index + 8, index + 8]),
            "id": torch.tensor(index),
        }


def main() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, hard))
    print(f"open-file limit: {OPEN_FILES}", flush=True)
    loader = DataLoader(Crops(), batch_size=None, num_workers=2)  # one sample at a time
    kept: list[dict[str, torch.Tensor]] = []
    for step, sample in enumerate(loader):
        kept.append(sample)  # BUG: every kept tensor holds a shared-memory file descriptor
        if step % 256 == 0:
            print(f"step {step}: kept {len(kept)} samples", flush=True)
    print(f"done: {len(kept)} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: share worker tensors through the file system instead of open descriptors.

Same loader, same loop and the same low open-file limit as repro.py. With
``torch.multiprocessing.set_sharing_strategy("file_system")`` a tensor
crosses from a worker by the *name* of its shared-memory file, so kept
tensors no longer hold descriptors open. (Raising the limit with
``ulimit -n 65535`` where the hard limit allows it works as well, and
``.clone()`` of what is kept releases the shared segment.)

CPU only, one process plus its DataLoader workers (launcher: python).
"""

import resource
import sys

import torch
import torch.multiprocessing
from torch.utils.data import DataLoader, Dataset

OPEN_FILES = 256

torch.multiprocessing.set_sharing_strategy("file_system")  # the fix, before any DataLoader


class Crops(Dataset):
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
    loader = DataLoader(Crops(), batch_size=None, num_workers=2)
    kept: list[dict[str, torch.Tensor]] = []
    for step, sample in enumerate(loader):
        kept.append(sample)
        if step % 256 == 0:
            print(f"step {step}: kept {len(kept)} samples", flush=True)
    print(f"done: {len(kept)} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())

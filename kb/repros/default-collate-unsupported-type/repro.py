"""Reproduce: "expected Tensor as element 3 in argument 0, but got NoneType" (default_collate meets a None sample).

The dataset's ``__getitem__`` returns ``None`` for samples it cannot read (a
corrupt or missing file, caught by a broad ``except``). The default collate
function meets the ``None`` while building the batch and does not know how
to batch it.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Files(Dataset):
    def __init__(self) -> None:
        self.paths = [f"sample_{i}.pt" for i in range(8)]
        self.broken = {3}  # one unreadable file

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index):
        try:
            if index in self.broken:
                raise OSError(f"cannot read {self.paths[index]}")
            return torch.full((4,), float(index))
        except OSError:
            return None  # BUG: the default collate cannot batch None


def main() -> int:
    for batch in DataLoader(Files(), batch_size=4):
        print(batch.shape, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

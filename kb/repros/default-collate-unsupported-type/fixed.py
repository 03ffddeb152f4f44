"""Fixed: a collate function drops the samples the dataset could not read.

The dataset's ``__getitem__`` returns ``None`` for samples it cannot read (a
corrupt or missing file, caught by a broad ``except``). The default collate
function meets the ``None`` while building the batch and does not know how
to batch it.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch.utils.data import DataLoader, Dataset, default_collate


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
            return None  # marked unreadable; the collate function drops it


def skip_none(samples):
    return default_collate([s for s in samples if s is not None])  # FIX: drop unreadable samples


def main() -> int:
    for batch in DataLoader(Files(), batch_size=4, collate_fn=skip_none):
        print(batch.shape, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

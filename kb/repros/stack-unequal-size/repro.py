"""Reproduce: "stack expects each tensor to be equal size".

A dataset of tokenised sentences returns one 1-D tensor of token ids per
sample, each as long as its sentence. The DataLoader's default collate
function builds a batch with ``torch.stack``, which needs every sample to have
the same shape.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __init__(self) -> None:
        generator = torch.Generator().manual_seed(0)
        lengths = [5, 9, 7, 12, 6, 8]
        self.samples = [torch.randint(1, 100, (n,), generator=generator) for n in lengths]

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index):
        return self.samples[index]


def main() -> int:
    loader = DataLoader(Sentences(), batch_size=3)  # BUG: default collate stacks ragged samples
    for batch in loader:
        print(batch.shape, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

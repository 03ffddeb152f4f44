"""Fixed: a collate_fn pads the ragged samples (and returns a mask) before stacking.

A dataset of tokenised sentences returns one 1-D tensor of token ids per
sample, each as long as its sentence. The DataLoader's default collate
function builds a batch with ``torch.stack``, which needs every sample to have
the same shape.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch.nn.utils.rnn import pad_sequence
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


def pad_collate(samples):
    ids = pad_sequence(samples, batch_first=True, padding_value=0)
    mask = pad_sequence([torch.ones_like(s) for s in samples], batch_first=True)
    return ids, mask


def main() -> int:
    loader = DataLoader(Sentences(), batch_size=3, collate_fn=pad_collate)  # FIX: pad, then stack
    for ids, mask in loader:
        print(ids.shape, mask.sum(1).tolist(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: the collate function is a module-level callable (functools.partial), so it pickles.

CPU only, no downloads (launcher: python).
"""

import functools
import sys

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def pad_collate(batch, pad_id):
    return pad_sequence(batch, batch_first=True, padding_value=pad_id)


def main() -> int:
    samples = [torch.randint(1, 50, (n,)) for n in (5, 9, 7, 3, 8, 6)]
    collate = functools.partial(pad_collate, pad_id=0)  # FIX: importable by name, picklable
    loader = DataLoader(samples, batch_size=3, collate_fn=collate, num_workers=2, multiprocessing_context="spawn")
    for batch in loader:
        print(tuple(batch.shape), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "Can't pickle local object" when DataLoader workers are spawned.

The collate function is defined inside ``main()`` (a closure over the pad id),
and the DataLoader uses worker processes. With the *spawn* start method
(the default on Windows and macOS, forced here so Linux behaves the same) the
DataLoader sends its dataset and collate_fn to every worker by pickling them,
and pickle can only store functions it can import by name from a module:
nested functions and lambdas cannot be sent.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def main() -> int:
    pad_id = 0
    samples = [torch.randint(1, 50, (n,)) for n in (5, 9, 7, 3, 8, 6)]

    def collate(batch):  # BUG: a local function cannot be pickled for spawned workers
        return pad_sequence(batch, batch_first=True, padding_value=pad_id)

    loader = DataLoader(samples, batch_size=3, collate_fn=collate, num_workers=2, multiprocessing_context="spawn")
    for batch in loader:
        print(tuple(batch.shape), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

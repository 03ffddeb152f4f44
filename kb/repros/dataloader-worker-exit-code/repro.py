"""Reproduce: a DataLoader worker process ends with exit code 1 instead of raising.

A dataset whose ``__getitem__`` calls ``sys.exit(1)`` on a record it cannot
read (the shape of a library's fatal-error path, an ``exit()`` left in data
code, an argparse error inside a worker) raises ``SystemExit``, which the
worker loop does not catch (it catches ``Exception``), so the worker process
simply exits with that code. The main process's SIGCHLD handler sees a child
that exited with a non-zero code and raises "DataLoader worker (pid N) exited
unexpectedly with exit code 1. Details are lost due to multiprocessing",
chained into "DataLoader worker (pid(s) N) exited unexpectedly" from
``_try_get_data``.

CPU only, one process with one DataLoader worker (launcher: python).
"""

import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        if index == 3:  # a record the reader cannot parse
            sys.exit(1)
        return torch.tensor([index], dtype=torch.float32)


if __name__ == "__main__":
    total = 0.0
    for batch in DataLoader(Records(), batch_size=8, num_workers=1):
        total += float(batch.sum())
    print(f"sum {total}")

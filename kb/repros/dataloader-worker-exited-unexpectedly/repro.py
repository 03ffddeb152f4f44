"""Reproduce: "DataLoader worker (pid(s) N) exited unexpectedly" with no exit code
and no signal.

A worker whose process ends with status 0 (data code calling ``sys.exit()``,
``exit()`` or ``os._exit(0)``) raises nothing in the worker loop, and the
SIGCHLD handler reports only non-zero exits and signals. The main process
learns of the dead worker only when its wait for a batch ends: then
``_try_get_data`` raises the bare message. (On Windows, with no SIGCHLD,
every dead worker is reported this way.)

CPU only, one process (launcher: python). The loader's ``timeout=2`` shortens
the wait (5 s by default, ``MP_STATUS_CHECK_INTERVAL``); the message is the same.
"""

import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        if i == 5:
            sys.exit()  # data code ending its process with status 0: no exception, no signal
        return torch.tensor([float(i)])


if __name__ == "__main__":
    loader = DataLoader(Rows(), batch_size=4, num_workers=2, timeout=2)
    for _batch in loader:
        pass
    print("all batches read")

"""Fixed: data code raises an exception instead of exiting, and the bad record is handled.

The same dataset, with the record check raising ``ValueError`` instead of
calling ``sys.exit``: the worker loop catches an ``Exception``, sends it to
the main process and the DataLoader re-raises it there with the worker's
traceback ("Caught ValueError in DataLoader worker process 0"), so the
failing record is named. The script shows that, then skips the bad record
(the fix for the data) and runs the epoch to the end.

CPU only, one process with one DataLoader worker (launcher: python).
"""

import torch
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):
    def __init__(self, skip=()):
        self.indices = [i for i in range(64) if i not in skip]

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, position):
        index = self.indices[position]
        if index == 3:  # a record the reader cannot parse
            raise ValueError(f"record {index}: cannot parse")
        return torch.tensor([index], dtype=torch.float32)


if __name__ == "__main__":
    try:
        for _ in DataLoader(Records(), batch_size=8, num_workers=1):
            pass
    except ValueError as exc:
        assert "record 3" in str(exc), exc
        print("the worker's error reached the main process:", str(exc).splitlines()[0])
    total = 0.0
    for batch in DataLoader(Records(skip={3}), batch_size=8, num_workers=1):
        total += float(batch.sum())
    print(f"sum {total}")

"""Fixed: the data code reports a bad sample with an exception instead of ending
its process. With a bad row skipped, every batch arrives; had it raised, the
DataLoader would re-raise it with its traceback ("Caught ValueError in
DataLoader worker process N") instead of a bare "exited unexpectedly".

CPU only, one process (launcher: python).
"""

import torch
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __init__(self):
        self.keep = [i for i in range(64) if i != 5]  # the bad row filtered out up front

    def __len__(self):
        return len(self.keep)

    def __getitem__(self, i):
        return torch.tensor([float(self.keep[i])])


if __name__ == "__main__":
    loader = DataLoader(Rows(), batch_size=4, num_workers=2, timeout=2)
    n = sum(len(batch) for batch in loader)
    print("rows read:", n)

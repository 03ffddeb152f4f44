"""Reproduce: a DataLoader worker dies of SIGSEGV in native code.

The dataset "decodes" each sample with native code (here ``ctypes``, standing
for an image/audio decoder or any compiled extension): it reads the sample's
bytes through a pointer taken from an index. One index entry is corrupt (an
offset from a null pointer), and reading it crashes the worker process with
SIGSEGV; no Python exception is raised. torch's worker signal handler prints
"ERROR: Unexpected segmentation fault encountered in worker." and the main
process raises "DataLoader worker (pid(s) N) exited unexpectedly" (most often
after "DataLoader worker (pid N) is killed by signal: Segmentation fault.").

CPU only (launcher: python); needs torch.
"""

import ctypes
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class NativeDecodedDataset(Dataset):
    """Samples kept in native buffers; the index holds (address, length) per sample."""

    def __init__(self, n: int) -> None:
        self.buffers = [ctypes.create_string_buffer(bytes([i % 256]) * 16) for i in range(n)]
        self.index = [(ctypes.addressof(b), 16) for b in self.buffers]
        self.index[1] = (0x10, 16)  # a corrupt entry: an offset from a null base

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, i: int) -> torch.Tensor:
        address, length = self.index[i]
        raw = ctypes.string_at(address, length)  # BUG: native read through a bad pointer
        return torch.frombuffer(bytearray(raw), dtype=torch.uint8).float()


def main() -> int:
    loader = DataLoader(NativeDecodedDataset(8), batch_size=2, num_workers=1)
    total = 0.0
    for batch in loader:
        total += batch.sum().item()
    print("sum:", total)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: the sample that crashes the native decoder is found and skipped.

Same dataset as repro.py. Following the article (reproduce with
``num_workers=0`` and ``python -X faulthandler``, log the index before
decoding), the crash is traced to index entry 1, whose address points into unmapped memory. The
dataset now checks each entry before handing it to native code and drops
the corrupt ones when it is built, so the workers only decode valid
buffers; the script checks that every remaining sample was loaded.

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
        index = [(ctypes.addressof(b), 16) for b in self.buffers]
        index[1] = (0x10, 16)  # the same corrupt entry
        valid = {ctypes.addressof(b) for b in self.buffers}
        self.index = [entry for entry in index if entry[0] in valid]  # the fix: validate first
        print(f"skipped {len(index) - len(self.index)} corrupt entr(ies)", flush=True)

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, i: int) -> torch.Tensor:
        address, length = self.index[i]
        raw = ctypes.string_at(address, length)
        return torch.frombuffer(bytearray(raw), dtype=torch.uint8).float()


def main() -> int:
    dataset = NativeDecodedDataset(8)
    loader = DataLoader(dataset, batch_size=2, num_workers=1)
    seen = sum(batch.shape[0] for batch in loader)
    print("samples loaded:", seen)
    return 0 if seen == len(dataset) == 7 else 1


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: the filter keeps the samples that fit (and the script checks the size first).

A length filter meant to drop over-long samples compares the wrong way round
(``>`` instead of ``<=``) and removes every sample. Building a shuffling
DataLoader over the now empty dataset fails at once: RandomSampler refuses to
sample from nothing.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch.utils.data import DataLoader

MAX_LEN = 64


def main() -> int:
    generator = torch.Generator().manual_seed(0)
    samples = [torch.randint(0, 100, (int(n),), generator=generator) for n in torch.randint(8, 48, (200,))]
    kept = [s for s in samples if len(s) <= MAX_LEN]  # FIX: keep what fits
    print(f"kept {len(kept)} of {len(samples)} samples", flush=True)
    assert kept, "the filter removed every sample"
    loader = DataLoader(kept, batch_size=8, shuffle=True, collate_fn=list)
    for batch in loader:
        print(len(batch))
    return 0


if __name__ == "__main__":
    sys.exit(main())

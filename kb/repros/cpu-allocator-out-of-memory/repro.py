"""Reproduce: "DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes".

A preprocessing step materialises a dense (samples x vocab) bag-of-words
matrix for the whole corpus at once: 400,000 documents x 1,250,000 words in
float32 is 2 TB, far beyond the host's RAM, so the CPU allocator's malloc
fails and PyTorch raises at once. (When the request is only slightly too
large, Linux may accept it and the kernel's OOM killer ends the process
later instead: "Killed".)

CPU only, no downloads (launcher: python).
"""

import sys

import torch

DOCUMENTS = 400_000
VOCAB = 1_250_000


def main() -> int:
    ids = torch.randint(0, VOCAB, (DOCUMENTS, 4))
    counts = torch.zeros(DOCUMENTS, VOCAB)  # BUG: dense matrix for the whole corpus at once
    counts.scatter_add_(1, ids, torch.ones_like(ids, dtype=torch.float32))
    print(counts.sum())
    return 0


if __name__ == "__main__":
    sys.exit(main())

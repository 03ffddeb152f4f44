"""Fixed: the corpus is processed in chunks, as sparse counts, never one dense matrix.

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
CHUNK = 100_000


def main() -> int:
    ids = torch.randint(0, VOCAB, (DOCUMENTS, 4))
    total = torch.zeros(())
    for chunk in ids.split(CHUNK):  # FIX: one chunk of documents at a time, sparse counts
        rows = torch.arange(chunk.size(0)).repeat_interleave(chunk.size(1))
        counts = torch.sparse_coo_tensor(
            torch.stack([rows, chunk.reshape(-1)]), torch.ones(chunk.numel()), (chunk.size(0), VOCAB)
        )
        total += torch.sparse.sum(counts)
    print(total)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: a token id beyond the embedding table on the GPU.

The classic way to get ``CUDA error: device-side assert triggered`` in LLM
fine-tuning: tokens were added to the tokenizer (special tokens, a chat
template's markers) but the model's embedding matrix was not resized, so the
batch holds ids >= ``num_embeddings``. On the GPU the bounds check is a
``CUDA_KERNEL_ASSERT`` inside the index kernel: the kernel prints ``...
Assertion `srcIndex < srcSelectDimSize` failed.`` for each offending thread,
the CUDA context is poisoned, and because kernels run asynchronously the
Python exception only comes at the next call that synchronises (here
``loss.item()``), possibly far from the line that caused it.

Tiny model, one GPU (launcher: python). Without a GPU the same mistake is a
plain ``IndexError: index out of range in self`` raised at the embedding.
"""

import sys

import torch
from torch import nn

VOCAB = 32  # rows of the embedding matrix, as saved in the checkpoint
ADDED = 4  # tokens later added to the tokenizer


class TinyLM(nn.Module):
    def __init__(self, vocab: int, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(ids))


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    model = TinyLM(VOCAB).cuda()
    # the tokenizer knows VOCAB + ADDED tokens; one sample uses an added one
    ids = torch.randint(0, VOCAB, (4, 16))
    ids[1, 7] = VOCAB + 2
    ids = ids.cuda()
    logits = model(ids[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
    print(f"loss {loss.item():.4f}")  # the first synchronising call raises
    return 0


if __name__ == "__main__":
    sys.exit(main())

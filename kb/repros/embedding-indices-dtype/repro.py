"""Reproduce: "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int".

A fine-tuning collator pads token ids into a batch with ``torch.Tensor(...)``
(the float constructor), as the attention mask was built. ``nn.Embedding``
looks rows up by integer index; the float ids reach ``F.embedding`` and
ATen's ``checkScalarTypes`` rejects them. Older releases (before 1.8) print
"to have scalar type Long; but got ... instead" for the same mistake.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 32, dim: int = 16) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.embed_tokens(input_ids))


def collate(batch: list[list[int]], pad_id: int = 0) -> dict[str, torch.Tensor]:
    width = max(len(ids) for ids in batch)
    padded = [ids + [pad_id] * (width - len(ids)) for ids in batch]
    mask = [[1] * len(ids) + [0] * (width - len(ids)) for ids in batch]
    return {
        "input_ids": torch.Tensor(padded),  # BUG: torch.Tensor builds float32
        "attention_mask": torch.Tensor(mask),
    }


def main() -> int:
    torch.manual_seed(0)
    model = TinyLM()
    batch = collate([[5, 7, 9, 2], [4, 8, 2]])
    logits = model(batch["input_ids"])
    loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), batch["input_ids"].long().view(-1))
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

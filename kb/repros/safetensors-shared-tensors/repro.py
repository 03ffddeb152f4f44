"""Reproduce: safetensors "Some tensors share memory, this will lead to
duplicate memory on disk and potential differences when loading them again".

A small language model ties its output projection to the input embedding (the
usual ``tie_word_embeddings``): both parameters are the same tensor. Saving its
state dict with ``safetensors.torch.save_file`` refuses tensors that share
storage, because the file format has no way to express aliasing.

CPU only, no downloads; the file goes to a temporary directory (launcher: python).
"""

import os
import sys
import tempfile

import torch
from safetensors.torch import save_file
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 32, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.lm_head.weight = self.embed.weight  # tied weights

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.embed(ids))


def main() -> int:
    torch.manual_seed(0)
    model = TinyLM()
    with tempfile.TemporaryDirectory() as tmp:
        save_file(model.state_dict(), os.path.join(tmp, "model.safetensors"))  # BUG: aliased tensors
        print("saved", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

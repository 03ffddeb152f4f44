"""Fixed: save with safetensors.torch.save_model, which keeps one copy of each
shared tensor, and restore the tie with load_model.

Same tied-embedding model as repro.py. ``save_model`` drops the duplicate
names of a shared storage (keeping one) and ``load_model`` fills the module,
so ``lm_head.weight`` is again the very tensor of ``embed.weight``.

CPU only, no downloads (launcher: python).
"""

import os
import sys
import tempfile

import torch
from safetensors.torch import load_model, save_model
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
        path = os.path.join(tmp, "model.safetensors")
        save_model(model, path)  # the fix: de-duplicates shared tensors
        restored = TinyLM()
        load_model(restored, path)
        assert restored.lm_head.weight is restored.embed.weight
        ids = torch.tensor([[1, 2, 3]])
        assert torch.equal(restored(ids), model(ids))
        print("ok: saved once, tie restored on load", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "Expected all tensors to be on the same device" from the user's own code.

The model and the batch are moved to the GPU correctly, but the model's
forward creates a helper tensor without a device: ``torch.arange(seq_len)``
lands on the default device, the CPU. Indexing the (GPU) position-embedding
table with CPU indices fails inside the embedding lookup:

- recent releases (wording changed by pytorch#155085; 2.13 prints it):
  "Expected all tensors to be on the same device, but got index is on cpu,
  different from other tensors on cuda:0 (when checking argument in method
  wrapper_CUDA__index_select)"
- older releases: "... but found at least two devices, cuda:0 and cpu!
  (when checking argument for argument index in method wrapper_CUDA__index_select)"

No accelerate, no device_map, no DeepSpeed: one process, one GPU, plain torch.

Requires: 1 CUDA GPU (launcher: python).
"""

import sys

import torch
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 32, max_len: int = 16) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(max_len, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        seq_len = input_ids.size(1)
        position_ids = torch.arange(seq_len)  # BUG: created on the CPU
        hidden = self.tokens(input_ids) + self.positions(position_ids)[None]
        return self.head(hidden)


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = TinyLM().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, 64, (4, 13)).to(device)
    for step in range(2):
        logits = model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, 64), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

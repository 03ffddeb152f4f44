"""Fixed: create helper tensors on the device of the data they will meet.

Same program as repro.py. ``torch.arange(seq_len, device=input_ids.device)``
puts the position ids where the token ids already are, so the model works on
whatever device it is moved to (CPU, cuda:0, or cuda:N under DDP) without any
hard-coded device string.

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
        position_ids = torch.arange(seq_len, device=input_ids.device)  # FIX
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

"""Reproduce: "element 0 of tensors does not require grad and does not have a grad_fn".

The shape of a LoRA fine-tune with gradient checkpointing: the embedding and
the output head are frozen, the only trainable weights are small adapters
inside the transformer blocks, and every block runs under *reentrant*
activation checkpointing (``use_reentrant=True``, the historical default that
transformers' ``gradient_checkpointing_enable()`` used).

A reentrant checkpoint records the block in the graph only when one of its
*tensor inputs* requires grad. The hidden states coming out of a frozen
embedding do not, so the checkpointed blocks are left out of the graph (torch
warns "None of the inputs have requires_grad=True"), the frozen head adds
nothing, and the loss ends up with no grad_fn: ``loss.backward()`` raises.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class AdapterBlock(nn.Module):
    """A frozen linear layer plus a trainable low-rank adapter (LoRA-style)."""

    def __init__(self, dim: int = 32, rank: int = 4) -> None:
        super().__init__()
        self.base = nn.Linear(dim, dim)
        self.base.requires_grad_(False)
        self.lora_a = nn.Linear(dim, rank, bias=False)
        self.lora_b = nn.Linear(rank, dim, bias=False)

    def forward(self, x):
        return x + torch.tanh(self.base(x) + self.lora_b(self.lora_a(x)))


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 32, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(AdapterBlock(dim) for _ in range(layers))
        self.head = nn.Linear(dim, vocab)
        self.embed.requires_grad_(False)  # frozen, as in LoRA
        self.head.requires_grad_(False)

    def forward(self, tokens):
        hidden = self.embed(tokens)
        for block in self.blocks:
            hidden = checkpoint(block, hidden, use_reentrant=True)
        return self.head(hidden)


def main() -> int:
    torch.manual_seed(0)
    model = TinyLM()
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-3)
    tokens = torch.randint(0, 64, (4, 12))
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

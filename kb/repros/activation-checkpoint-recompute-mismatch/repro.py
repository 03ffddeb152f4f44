"""Reproduce: "torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: Recomputed
values for the following tensors have different metadata than during the forward pass."

A block drops a random number of tokens (a token-pruning / capacity trick)
and draws that number with Python's ``random`` module. It runs under
non-reentrant activation checkpointing (``use_reentrant=False``, what
transformers' gradient_checkpointing uses by default). During backward,
checkpoint re-runs the block to rebuild the activations it did not keep. It
restores torch's RNG state for that re-run, but not Python's: the re-run
keeps a different number of tokens, so the tensors saved the second time
have other shapes than in the forward, and checkpoint refuses them. Sharded
parameters that are not gathered again during the re-run (ZeRO-3, FSDP:
"recomputed metadata: {'shape': torch.Size([0])") fail the same check.

CPU only (launcher: python).
"""

import random
import sys

import torch
from torch.utils.checkpoint import checkpoint


class TokenDropBlock(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keep = random.randint(4, x.shape[1])  # BUG: Python RNG, not restored for the recompute
        kept = x[:, :keep]
        return torch.relu(self.proj(kept)).mean(dim=1)


def main() -> int:
    random.seed(0)
    torch.manual_seed(0)
    block = TokenDropBlock(32)
    x = torch.randn(2, 16, 32, requires_grad=True)
    out = checkpoint(block, x, use_reentrant=False)
    loss = out.pow(2).sum()
    print(f"loss {loss.item():.4f}", flush=True)
    loss.backward()
    print("backward done")
    return 0


if __name__ == "__main__":
    sys.exit(main())

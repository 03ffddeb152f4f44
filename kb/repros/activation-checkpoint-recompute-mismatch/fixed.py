"""Fixed: draw the random number with torch's RNG, which checkpoint restores.

Same program as repro.py. ``checkpoint`` stashes and restores torch's RNG
state (``preserve_rng_state=True``, the default) around the recompute, so a
count drawn with ``torch.randint`` is the same in the forward and in the
recompute, and the saved tensors match. (Deciding the count outside the
checkpointed function and passing it in works as well.)
"""

import sys

import torch
from torch.utils.checkpoint import checkpoint


class TokenDropBlock(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keep = int(torch.randint(4, x.shape[1] + 1, ()).item())  # FIX: torch RNG, replayed by checkpoint
        kept = x[:, :keep]
        return torch.relu(self.proj(kept)).mean(dim=1)


def main() -> int:
    torch.manual_seed(0)
    block = TokenDropBlock(32)
    x = torch.randn(2, 16, 32, requires_grad=True)
    out = checkpoint(block, x, use_reentrant=False)
    loss = out.pow(2).sum()
    print(f"loss {loss.item():.4f}", flush=True)
    loss.backward()
    print("backward done, grad norm", f"{x.grad.norm().item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

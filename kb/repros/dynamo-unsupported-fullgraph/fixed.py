"""Fixed: the branch is a tensor operation, so the whole forward is one graph.

``torch.where`` computes both sides and selects by the (tensor) condition;
``torch.cond`` is the alternative when the two branches are expensive. Without
``fullgraph=True`` the original code would also run (with a graph break).

CPU only, backend="eager", launcher: python.
"""

import sys

import torch


class Gate(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        return torch.where(h.sum() > 0, torch.relu(h), -h)  # FIX: no Python branch on a tensor


def main() -> int:
    torch.manual_seed(0)
    model = torch.compile(Gate(), backend="eager", fullgraph=True)
    out = model(torch.randn(4, 8))
    print(tuple(out.shape))
    return 0


if __name__ == "__main__":
    sys.exit(main())

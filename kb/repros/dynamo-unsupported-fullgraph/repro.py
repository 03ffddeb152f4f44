"""Reproduce: torch._dynamo.exc.Unsupported under torch.compile(fullgraph=True).

Dynamo traces Python code into one FX graph. Code it cannot put in a graph (a
branch on a tensor's value, ``.item()``, ``print``, a call into an unsupported
library object) is a *graph break*: without ``fullgraph`` Dynamo splits the
graph there and runs that bit in Python; with ``fullgraph=True`` it raises
``Unsupported`` instead. Here ``forward`` branches on ``x.sum() > 0``, a value
known only when the tensor is computed.

CPU only, backend="eager" (no C++ compiler needed), launcher: python.
"""

import sys

import torch


class Gate(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        if h.sum() > 0:  # BUG: Python branch on a tensor value (data-dependent control flow)
            return torch.relu(h)
        return -h


def main() -> int:
    torch.manual_seed(0)
    model = torch.compile(Gate(), backend="eager", fullgraph=True)
    out = model(torch.randn(4, 8))
    print(out.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())

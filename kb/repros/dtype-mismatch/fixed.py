"""Fixed: convert explicitly at the boundary between the bf16 and fp32 parts.

Same program as repro.py. The head keeps float32 weights (a common choice for
a small, freshly initialised layer) and the hidden states are cast to the
head's dtype right before it, so every matrix multiply sees one dtype. The
other correct fixes are to create the head in the backbone's dtype
(``nn.Linear(..., dtype=torch.bfloat16)``) or to run the forward pass under
``torch.autocast``, which picks the dtype per operation.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, dim: int = 32, classes: int = 4) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.backbone.to(torch.bfloat16)  # "load the pretrained part in bf16"
        self.head = nn.Linear(dim, classes)  # new head: float32 by default

    def forward(self, x):
        hidden = self.backbone(x)
        return self.head(hidden.to(self.head.weight.dtype))  # FIX: one dtype per matmul


def main() -> int:
    torch.manual_seed(0)
    model = Classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(8, 32, dtype=torch.bfloat16)
    labels = torch.randint(0, 4, (8,))
    for step in range(2):
        loss = nn.functional.cross_entropy(model(x).float(), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

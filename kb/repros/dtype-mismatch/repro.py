"""Reproduce: "mat1 and mat2 must have the same dtype" (Float vs BFloat16).

A common fine-tuning shape: a backbone loaded in bfloat16 to save memory
(``torch_dtype=torch.bfloat16`` in transformers, here ``.to(torch.bfloat16)``)
plus a freshly created classification head, which ``nn.Linear`` builds in the
default dtype, float32. Without autocast, nothing converts between the two: the
bf16 hidden states reach the fp32 head and the matrix multiply refuses to mix
dtypes. On the CPU this reads "mat1 and mat2 must have the same dtype, but got
BFloat16 and Float"; CUDA words the same check differently.

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
        return self.head(hidden)  # BUG: bf16 activations into an fp32 layer


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

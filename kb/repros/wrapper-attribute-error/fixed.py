"""Fixed: reach the model's own methods through ``.module`` (unwrap first).

Same program as repro.py. ``model.module`` is the TinyLM inside DDP; helper
code that may get either form unwraps with ``getattr(model, "module", model)``.
"""

import os
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class TinyLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(32, 16)
        self.head = nn.Linear(16, 32)

    def forward(self, ids):
        return self.head(self.emb(ids))

    @torch.no_grad()
    def sample(self, ids, steps: int = 4):
        for _ in range(steps):
            ids = torch.cat([ids, self(ids)[:, -1].argmax(-1, keepdim=True)], dim=1)
        return ids


def main() -> int:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29592")
    dist.init_process_group("gloo", rank=0, world_size=1)
    torch.manual_seed(0)
    model = DDP(TinyLM())
    loss = model(torch.randint(0, 32, (2, 6))).sum()
    loss.backward()
    inner = getattr(model, "module", model)  # FIX: unwrap DDP / DataParallel
    print(inner.sample(torch.zeros(1, 1, dtype=torch.long)))
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

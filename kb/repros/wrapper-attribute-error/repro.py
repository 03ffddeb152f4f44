"""Reproduce: "'DistributedDataParallel' object has no attribute ..." after wrapping a model.

The training script wraps its model in DistributedDataParallel and later
calls one of the model's own methods (a sampling helper, as people do for
``generate``, ``config``, ``save_pretrained``) on the wrapper. DDP is an
nn.Module that holds the model as ``.module``; it does not forward unknown
attributes, so the lookup fails.

One process with a gloo process group of size 1, CPU only (launcher: python).
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
    os.environ.setdefault("MASTER_PORT", "29591")
    dist.init_process_group("gloo", rank=0, world_size=1)
    torch.manual_seed(0)
    model = DDP(TinyLM())
    loss = model(torch.randint(0, 32, (2, 6))).sum()
    loss.backward()
    print(model.sample(torch.zeros(1, 1, dtype=torch.long)))  # BUG: a method of the wrapped model
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

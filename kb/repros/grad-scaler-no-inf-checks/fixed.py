"""Fixed: build the optimizer after the model is final, over the parameters that train.

Same program as repro.py with the head replaced before the optimizer is
created, and the optimizer given only parameters that require gradients. The
script checks that every parameter in the optimizer received a gradient.

CPU only: ``torch.amp.GradScaler("cpu")`` (torch 2.3 and later). No downloads
(launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(32, 64), nn.GELU())
    backbone.requires_grad_(False)
    model = nn.Sequential(backbone, nn.Linear(64, 10))
    model[1] = nn.Linear(64, 4)
    # FIX: the optimizer is created last, over what actually trains
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(16, 32)
    labels = torch.randint(0, 4, (16,))
    for step in range(2):
        with torch.autocast(device_type="cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x).float(), labels)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        params = [p for group in optimizer.param_groups for p in group["params"]]
        if any(p.grad is None for p in params):
            print("a parameter in the optimizer got no gradient", file=sys.stderr)
            return 1
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "AssertionError: No inf checks were recorded for this optimizer."

``scaler.step(optimizer)`` unscales the gradients of the parameters in that
optimizer and records, per device, whether they contained inf/NaN. When none of
the optimizer's parameters has a gradient (``p.grad is None`` for all of them)
nothing is recorded and the step refuses. Here the optimizer is built over a
model whose parameters the loss never used: the training script replaced the
head after creating the optimizer, so the optimizer still holds the old head's
parameters and the loss flows through the new one only. The same happens when
every parameter in the optimizer is frozen, or the loss does not depend on them.

CPU only: ``torch.amp.GradScaler("cpu")`` runs the same check as on CUDA
(torch 2.3 and later). No downloads (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(32, 64), nn.GELU())
    backbone.requires_grad_(False)  # frozen feature extractor
    model = nn.Sequential(backbone, nn.Linear(64, 10))
    optimizer = torch.optim.AdamW(model[1].parameters(), lr=1e-3)
    model[1] = nn.Linear(64, 4)  # BUG: new head after the optimizer was created
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(16, 32)
    labels = torch.randint(0, 4, (16,))
    for step in range(2):
        with torch.autocast(device_type="cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x).float(), labels)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

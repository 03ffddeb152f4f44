"""Fixed: call ``scaler.update()`` once per iteration, also when the step is skipped.

Same loop as repro.py: the optimizer step is still skipped when the gradient
norm is too large, but ``scaler.update()`` runs at the end of every iteration
that called ``unscale_``, so the scaler's per-optimizer state returns to ready
before the next ``unscale_``.

CPU only: ``torch.amp.GradScaler("cpu")`` (torch 2.3 and later). No downloads
(launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 4))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(16, 32)
    labels = torch.randint(0, 4, (16,))
    for step in range(3):
        with torch.autocast(device_type="cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x).float(), labels)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        if norm > 0.5:
            print(f"step {step}: grad norm {norm:.3f} too large, skipping", flush=True)
        else:
            scaler.step(optimizer)
        scaler.update()  # FIX: once per iteration, whether or not the step ran
    return 0


if __name__ == "__main__":
    sys.exit(main())

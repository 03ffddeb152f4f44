"""Reproduce: "RuntimeError: unscale_() has already been called on this optimizer
since the last update()."

A GradScaler tracks, per optimizer, where the current iteration is: ready ->
unscaled (``unscale_``) -> stepped (``step``), and only ``scaler.update()``
resets it to ready. The loop below skips the optimizer step (and with it
``scaler.update()``) when the clipped gradient norm is too large, a pattern seen
in many training scripts. The next iteration's ``unscale_`` finds the optimizer
still marked as unscaled and refuses. Calling ``scaler.step`` twice without an
``update()`` in between fails the same way ("step() has already been called
since the last update()").

CPU only: ``torch.amp.GradScaler("cpu")`` keeps the same per-optimizer state
as on CUDA (torch 2.3 and later). No downloads (launcher: python).
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
        if norm > 0.5:  # BUG: skipping the step also skips scaler.update()
            print(f"step {step}: grad norm {norm:.3f} too large, skipping", flush=True)
            continue
        scaler.step(optimizer)
        scaler.update()
    return 0


if __name__ == "__main__":
    sys.exit(main())

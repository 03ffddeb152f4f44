"""Reproduce: "ValueError: Attempting to unscale FP16 gradients."

The classic mixed-precision mistake: the model itself is converted to float16
(``model.half()``, or ``torch_dtype=torch.float16`` when loading a pretrained
model) and then trained with a GradScaler, as ``fp16=True`` in the transformers
Trainer does. The scaler's job is to unscale fp32 master gradients; it refuses
fp16 gradients because unscaling them in place in fp16 would lose the very
small values loss scaling exists to keep. The check fires at
``scaler.unscale_`` (explicit here, before gradient clipping) or inside
``scaler.step``.

CPU only: ``torch.amp.GradScaler("cpu")`` runs the same check as on CUDA
(torch 2.3 and later). No downloads (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 4))
    model.half()  # BUG: the trainable weights themselves become fp16
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(16, 32)
    labels = torch.randint(0, 4, (16,))
    for step in range(2):
        with torch.autocast(device_type="cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x.half()).float(), labels)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)  # needed before clipping
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

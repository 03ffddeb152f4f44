"""Fixed: keep the trainable weights in float32 and let autocast run fp16 compute.

Same program as repro.py without ``model.half()``: the parameters (and so
their gradients and the optimizer state) stay float32, autocast runs the
matrix multiplies in float16, and the GradScaler unscales fp32 gradients as it
is designed to. The script checks the dtype of the gradients it clipped.

CPU only: ``torch.amp.GradScaler("cpu")`` runs the same check as on CUDA
(torch 2.3 and later). No downloads (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 4))
    # FIX: no model.half(); the weights stay fp32, autocast picks fp16 per operation
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(16, 32)
    labels = torch.randint(0, 4, (16,))
    for step in range(2):
        with torch.autocast(device_type="cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x).float(), labels)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)  # needed before clipping
        if any(p.grad.dtype != torch.float32 for p in model.parameters()):
            print("gradients are not fp32", file=sys.stderr)
            return 1
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

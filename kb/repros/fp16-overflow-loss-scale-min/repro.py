"""Reproduce: DeepSpeed "Current loss scale already at minimum - cannot decrease scale anymore".

A model whose hidden activations exceed fp16's range (max 65504), as those of
LLMs pre-trained in bf16 do, is fine-tuned with DeepSpeed's fp16 mode. The
forward pass itself overflows: the large projection produces inf in fp16,
the LayerNorm after it turns that into NaN, and every step's gradients are
non-finite whatever the loss scale. DeepSpeed logs "OVERFLOW! Rank 0
Skipping step. Attempted loss scale: 16, reducing to 8" at each step until
the scale reaches ``min_loss_scale`` and ``update_scale`` raises. The config
asks for a small initial scale (2^4); with torch's AdamW (DeepSpeed's
"unfused" fp16 optimizer) DeepSpeed may start at 2^16 instead, so the loop
runs up to 40 steps: the exception comes at step 5 or step 17.

One GPU, one process, DeepSpeed's fp16 optimizer (ZeRO stage 0), torch's
AdamW (no fused-op build) (launcher: python); needs deepspeed.
"""

import os
import socket
import sys

if not os.environ.get("MASTER_PORT"):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        os.environ["MASTER_PORT"] = str(s.getsockname()[1])
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

PRECISION = {"fp16": {"enabled": True, "initial_scale_power": 4, "hysteresis": 1, "min_loss_scale": 1}}


def bf16_pretrained_like() -> nn.Module:
    """Hidden activations around 1e5 to 1e6, normalised before the head."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.Linear(256, 256), nn.LayerNorm(256), nn.Linear(256, 8))
    with torch.no_grad():
        model[0].weight.normal_(0.0, 30.0)  # large-magnitude features, as in bf16-trained LLMs
        model[1].weight.normal_(0.0, 30.0)
    return model


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    config = {
        "train_micro_batch_size_per_gpu": 8,
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
        "zero_optimization": {"stage": 0},
        **PRECISION,
    }
    model = bf16_pretrained_like()
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config)
    dtype = torch.float16 if PRECISION.get("fp16", {}).get("enabled") else torch.bfloat16
    for step in range(40):
        x = torch.randn(8, 64, device=engine.device, dtype=dtype)
        target = torch.randint(0, 8, (8,), device=engine.device)
        loss = nn.functional.cross_entropy(engine(x).float(), target)
        engine.backward(loss)
        engine.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: bf16 instead of fp16 for a model whose activations exceed fp16's range.

The article's fix when the overflow happens in the forward pass (no loss
scale can help then): train in bf16 (``"bf16": {"enabled": true}``; on GPUs
without bf16, fp32), which has fp32's exponent range and needs no loss
scaling. Same model, ZeRO stage and loop as repro.py; every step runs and the
script checks that every loss is finite.

CPU only: DeepSpeed's CPU accelerator, one process (launcher: python); the
JIT build of the CPU shared-memory collective op is skipped, as in repro.py.
"""

import math
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
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

PRECISION: dict[str, dict[str, object]] = {"bf16": {"enabled": True}}  # FIX: bf16, not fp16
STEPS = 10


def bf16_pretrained_like() -> nn.Module:
    """Hidden activations around 1e5 to 1e6, normalised before the head."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.Linear(256, 256), nn.LayerNorm(256), nn.Linear(256, 8))
    with torch.no_grad():
        model[0].weight.normal_(0.0, 30.0)  # large-magnitude features, as in bf16-trained LLMs
        model[1].weight.normal_(0.0, 30.0)
    return model


def main() -> int:
    config = {
        "train_micro_batch_size_per_gpu": 8,
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
        "zero_optimization": {"stage": 1},
        **PRECISION,
    }
    model = bf16_pretrained_like()
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config)
    dtype = torch.float16 if PRECISION.get("fp16", {}).get("enabled") else torch.bfloat16
    for step in range(STEPS):
        x = torch.randn(8, 64, device=engine.device, dtype=dtype)
        target = torch.randint(0, 8, (8,), device=engine.device)
        loss = nn.functional.cross_entropy(engine(x).float(), target)
        engine.backward(loss)
        engine.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
        if not math.isfinite(loss.item()):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

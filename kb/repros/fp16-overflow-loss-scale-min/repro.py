"""Reproduce: DeepSpeed "Current loss scale already at minimum - cannot decrease scale anymore".

A model whose hidden activations exceed fp16's range (max 65504), as those of
LLMs pre-trained in bf16 do, is fine-tuned with DeepSpeed's fp16 mode under
ZeRO stage 1. The forward pass itself overflows: the large projection
produces inf in fp16, the LayerNorm after it turns that into NaN, and every
step's gradients are non-finite whatever the loss scale. Each step is skipped
and the scale halved (initial scale 2^4, hysteresis 1) until it reaches
``min_loss_scale`` (1); at the next overflow ZeRO's DynamicLossScaler raises
(deepspeed/runtime/fp16/loss_scaler.py, update_scale), at step 4.

ZeRO stage 1, 2 or 3 is what raises: their optimizers scale the loss with
DynamicLossScaler (raise_error_at_min_scale defaults to True and no config
key changes it). Without ZeRO (stage 0), DeepSpeed's FP16_Optimizer clamps
the scale at min_loss_scale and skips every step without a word, which is
why this script's first version (stage 0) ran 40 NaN steps on an H200.

CPU only: DeepSpeed's CPU accelerator, one process (launcher: python). The
CPU accelerator accepts fp16 only where torch reports native oneDNN fp16
(``torch.ops.mkldnn._is_mkldnn_fp16_supported()``, true on recent Xeons);
torch computes fp16 on any x86 CPU, so the gate is lifted to make the run
the same on every host. The JIT build of DeepSpeed's
CPU shared-memory collective op is skipped (it only speeds up collectives
and takes minutes to compile on a fresh machine).
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
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from deepspeed.accelerator import get_accelerator  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build
get_accelerator().is_fp16_supported = lambda: True  # the same run on every x86 host (see above)

PRECISION = {"fp16": {"enabled": True, "initial_scale_power": 4, "hysteresis": 1, "min_loss_scale": 1}}
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
        print(f"step {step} loss {loss.item():.4f} loss scale {engine.optimizer.loss_scale}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

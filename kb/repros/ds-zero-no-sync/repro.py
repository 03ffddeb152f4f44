"""Reproduce: DeepSpeed "no_sync context manager is incompatible with gradient
partitioning logic of ZeRO stage 2".

A training loop written for DDP skips gradient synchronisation on
accumulation micro-steps with ``with model.no_sync():``. After switching the
model to a DeepSpeed ZeRO-2 engine the same code fails: under ZeRO-2/3 each
rank only keeps its partition of the gradients, so they must be
reduce-scattered on every backward, and DeepSpeedEngine.no_sync refuses.

CPU only: DeepSpeed's CPU accelerator, one process (launcher: python). The JIT
build of DeepSpeed's CPU shared-memory collective op is skipped (it only speeds
up collectives and takes minutes to compile on a fresh machine).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29671")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

ACCUM = 4
DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "gradient_accumulation_steps": ACCUM,
    "zero_optimization": {"stage": 2},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    for micro_step in range(ACCUM):
        x = torch.randn(2, 32)
        if micro_step < ACCUM - 1:
            with engine.no_sync():  # BUG: DDP-style accumulation, not allowed under ZeRO-2/3
                engine.backward(engine(x).pow(2).mean())
        else:
            engine.backward(engine(x).pow(2).mean())
        engine.step()
    print("trained", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: let DeepSpeed do the gradient accumulation; no no_sync.

Same ZeRO-2 model and accumulation of 4 micro-steps as repro.py. The config's
``gradient_accumulation_steps`` tells the engine where the boundaries are:
call ``engine.backward`` and ``engine.step`` on every micro-step, and the
engine only updates the weights (and steps the scheduler) at each boundary.

CPU only, one process (launcher: python).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29672")
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
    for _ in range(2 * ACCUM):
        x = torch.randn(2, 32)
        engine.backward(engine(x).pow(2).mean())
        engine.step()  # an optimizer step only at each accumulation boundary
    assert engine.global_steps == 2, engine.global_steps
    print("ok: 8 micro-steps, 2 optimizer steps", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

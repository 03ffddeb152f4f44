"""Reproduce: a torch LR scheduler built on the optimizer DeepSpeed returns
under ZeRO: "TypeError: DeepSpeedZeroOptimizer is not an Optimizer".

With ZeRO (and with fp16/bf16 without ZeRO) ``deepspeed.initialize`` returns a
wrapper (DeepSpeedZeroOptimizer, DeepSpeedZeroOptimizer_Stage3,
FP16_Optimizer, BF16_Optimizer) that derives from DeepSpeed's own
``DeepSpeedOptimizer(object)``, not from ``torch.optim.Optimizer``. Every torch
scheduler's constructor checks ``isinstance(optimizer, Optimizer)``. The same
happens when the ds config names a torch scheduler
(``"scheduler": {"type": "CosineAnnealingLR"}``): DeepSpeed falls back to
``torch.optim.lr_scheduler.CosineAnnealingLR`` and builds it on the wrapper.

This script does the second (the ds-config path), then the first.
CPU only: DeepSpeed 0.19.8's CPU accelerator with the torch CPU process group,
one process (launcher: python); torch's AdamW via ``torch_adam`` (no compiled
ops). The JIT build of DeepSpeed's CPU shared-memory op is skipped.
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29691")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import sys  # noqa: E402

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

BASE = {
    "train_micro_batch_size_per_gpu": 2,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
    "zero_optimization": {"stage": 2},
}

deepspeed.init_distributed(dist_backend="gloo")

# 1. a torch scheduler named in the ds config
config = dict(BASE, scheduler={"type": "CosineAnnealingLR", "params": {"T_max": 10, "eta_min": 1e-6}})
model = nn.Linear(8, 8)
try:
    deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config)
except TypeError as exc:
    print(f"ds config scheduler CosineAnnealingLR: TypeError: {exc}", flush=True)

# 2. a torch scheduler built by the script on the returned optimizer
model = nn.Linear(8, 8)
engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=BASE)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 10))  # fails here

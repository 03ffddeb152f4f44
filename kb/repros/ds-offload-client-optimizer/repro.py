"""Reproduce: ZeRO-Offload (offload_optimizer to the CPU) with an optimizer the
script built itself, which DeepSpeed refuses: "ZeRORuntimeException: You are
using ZeRO-Offload with a client provided optimizer (...)".

With ``zero_optimization.offload_optimizer.device: cpu`` (or nvme) the fp32
master weights and optimizer states live in CPU memory and the optimizer step
runs on the CPU. DeepSpeed builds DeepSpeedCPUAdam for that when the optimizer
is given in the config; an optimizer object passed to ``deepspeed.initialize``
(``optimizer=``) is checked in ``DeepSpeedEngine._configure_optimizer`` and,
unless it is DeepSpeedCPUAdam/DeepSpeedCPULion or ``zero_force_ds_cpu_optimizer``
is false, refused (deepspeed#2971). Without that check (DeepSpeed before it,
or the check switched off), a GPU-only optimizer (DeepSpeed's or apex's
FusedAdam) reaches its CUDA kernel with CPU tensors and stops with
"RuntimeError: expected input to be on cuda".

CPU only: DeepSpeed 0.19.8's CPU accelerator with the torch CPU process group,
one process (launcher: python); the client optimizer is torch's AdamW (the
check refuses any client optimizer; a FusedAdam cannot be built without CUDA).
The JIT build of DeepSpeed's CPU shared-memory collective op is skipped (it only
speeds up collectives and takes minutes to compile).
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29671")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import sys  # noqa: E402

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},
}

torch.manual_seed(0)
deepspeed.init_distributed(dist_backend="gloo")
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)  # the script's own optimizer
engine, _, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=DS_CONFIG)  # fails here
print("initialized", type(engine.optimizer).__name__)

"""Fixed: the torch scheduler is built on the torch optimizer, not on
DeepSpeed's wrapper, and handed to DeepSpeed, which steps it.

1. ``lr_scheduler=`` given a callable: DeepSpeed calls it with
   ``engine.basic_optimizer`` (the torch optimizer inside the ZeRO wrapper)
   and steps the result in ``engine.step()``.
2. A DeepSpeed scheduler in the ds config (``WarmupCosineLR``); DeepSpeed's
   own schedulers accept its wrappers.

Both train two steps with ZeRO-2 and print the learning rate.
CPU only: DeepSpeed 0.19.8's CPU accelerator, one process (launcher: python).
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29692")
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


def train(config: dict, lr_scheduler=None) -> list[float]:
    model = nn.Linear(8, 8)
    engine, _, _, scheduler = deepspeed.initialize(
        model=model, model_parameters=model.parameters(), config=config, lr_scheduler=lr_scheduler
    )
    for _ in range(2):
        loss = engine(torch.randn(2, 8)).pow(2).mean()
        engine.backward(loss)
        engine.step()  # steps the scheduler too
    return scheduler.get_last_lr()


def cosine(optimizer):
    return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10, eta_min=1e-6)


print("callable -> torch CosineAnnealingLR:", train(BASE, lr_scheduler=cosine), flush=True)
ds_sched = dict(
    BASE,
    scheduler={"type": "WarmupCosineLR", "params": {"total_num_steps": 10, "warmup_num_steps": 1}},
)
print("ds config WarmupCosineLR:", train(ds_sched), flush=True)

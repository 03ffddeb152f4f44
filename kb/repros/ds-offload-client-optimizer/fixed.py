"""Fixed: the optimizer comes from the DeepSpeed config, so DeepSpeed builds the
one that runs where the offloaded states are; and, the article's other fix, a
client optimizer that has a CPU implementation with the check switched off.

1. ``"optimizer": {"type": "AdamW", ...}`` in the config and no ``optimizer=``
   argument. On a GPU machine DeepSpeed builds DeepSpeedCPUAdam here; this CPU
   run adds ``"torch_adam": true`` so DeepSpeed builds torch's AdamW (which runs
   on CPU tensors) instead of compiling the CPUAdam extension, which takes
   minutes. The decision path is the same: config optimizer, no client check.
2. torch's AdamW passed as the client optimizer with
   ``"zero_force_ds_cpu_optimizer": false`` (allowed because torch's AdamW has a
   CPU implementation; a FusedAdam would still fail in its CUDA kernel).

Both run two training steps with ZeRO-2 and offload_optimizer to the CPU.
CPU only: DeepSpeed 0.19.8's CPU accelerator, one process (launcher: python).
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29672")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import sys  # noqa: E402

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

ZERO = {"stage": 2, "offload_optimizer": {"device": "cpu"}}
torch.manual_seed(0)
deepspeed.init_distributed(dist_backend="gloo")


def train(config: dict, optimizer_factory=None) -> str:
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
    kwargs = {"model": model, "config": config}
    if optimizer_factory is None:
        kwargs["model_parameters"] = model.parameters()
    else:
        kwargs["optimizer"] = optimizer_factory(model.parameters())
    engine, _, _, _ = deepspeed.initialize(**kwargs)
    for _ in range(2):
        loss = engine(torch.randn(2, 8)).pow(2).mean()
        engine.backward(loss)
        engine.step()
    return type(engine.optimizer).__name__


config_optimizer = {
    "train_micro_batch_size_per_gpu": 2,
    "zero_optimization": ZERO,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}
print("config optimizer:", train(config_optimizer), flush=True)

client_allowed = {"train_micro_batch_size_per_gpu": 2, "zero_optimization": ZERO, "zero_force_ds_cpu_optimizer": False}
print("client AdamW, check off:", train(client_allowed, lambda p: torch.optim.AdamW(p, lr=1e-4)), flush=True)

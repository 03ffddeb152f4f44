"""Reproduce: DeepSpeed "Check batch related parameters. train_batch_size is not
equal to micro_batch_per_gpu * gradient_acc_step * world_size".

The DeepSpeed config was written for a 4-GPU run (32 = 4 per GPU x 2
accumulation steps x 4 GPUs) and fixes all three batch values. The job is
started with another number of processes (here one), so the product no longer
equals train_batch_size and deepspeed.initialize rejects the config.

CPU only: DeepSpeed picks its CPU accelerator and torch's gloo/CPU process
group; one process (launcher: python). The JIT build of DeepSpeed's CPU
shared-memory collective op is skipped because it only speeds up collectives
and takes minutes to compile on a fresh machine.
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29631")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {  # written for 4 GPUs
    "train_batch_size": 32,
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    print("initialized, world size", engine.world_size, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

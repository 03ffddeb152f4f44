"""Fixed: let DeepSpeed derive train_batch_size from the per-GPU batch, the
accumulation steps and the real world size.

Same scenario as repro.py (a config written for 4 GPUs, run on one process),
but the config only fixes the per-GPU micro batch and the accumulation steps;
DeepSpeed computes train_batch_size = micro * accumulation * world_size for
whatever number of processes the launcher started. Then a training step runs.

CPU only, one process (launcher: python).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29632")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {  # no train_batch_size: derived from the two values below and the world size
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    assert engine.train_batch_size() == 4 * 2 * engine.world_size
    for _ in range(2):
        x = torch.randn(4, 32)
        loss = engine(x).pow(2).mean()
        engine.backward(loss)
        engine.step()
    print(f"ok: train_batch_size={engine.train_batch_size()} on {engine.world_size} process(es)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The fix: gather a partitioned parameter before reading its values during construction.

``deepspeed.zero.GatheredParameters`` all-gathers the child's bias for the
duration of the block, so the new parameter is built from the real values;
when the parent's ``__init__`` returns, zero.Init partitions it like any other
parameter and the engine fetches it before each forward. (Building the
parameter from a shape, ``torch.zeros(32)``, and copying values later under
GatheredParameters works as well.)
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29644")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed
import deepspeed.comm.torch
import torch
from torch import nn

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


class GatedHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(32, 32)
        # FIX: read the partitioned bias only while it is gathered
        with deepspeed.zero.GatheredParameters(self.proj.bias, modifier_rank=None):
            self.gate = nn.Parameter(self.proj.bias.data.clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x) * self.gate


def main() -> int:
    deepspeed.init_distributed()
    with deepspeed.zero.Init(config_dict_or_path=DS_CONFIG):
        model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), GatedHead())
    assert model[2].gate.ds_numel == 32, model[2].gate.ds_summary()
    engine, _, _, _ = deepspeed.initialize(
        model=model, model_parameters=model.parameters(), config=DS_CONFIG
    )
    loss = engine(torch.randn(2, 16)).pow(2).mean()
    engine.backward(loss)
    engine.step()
    print("step done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

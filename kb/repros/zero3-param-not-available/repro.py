"""Reproduce: DeepSpeed ZeRO-3 "AssertionError: {'id': N, 'status': 'NOT_AVAILABLE',
'numel': 0, 'ds_numel': 0, 'shape': (0,), 'ds_shape': (0,), ... 'persist': True ...}".

Under ZeRO-3 the model is built inside ``deepspeed.zero.Init`` (what
transformers' ``from_pretrained`` does when a stage-3 DeepSpeed config is
active): each submodule's parameters are partitioned as soon as that
submodule's ``__init__`` returns, and its ``param.data`` becomes an empty
placeholder of shape (0,). A parent module that then builds a new parameter
from a child's ``.data`` (a copied or tied weight, a custom initialisation)
copies the placeholder: DeepSpeed registers a parameter with zero elements
that no all-gather ever fills, and the first forward through that module
fails the "parameter is available" assertion in fetch_sub_module.

CPU only: DeepSpeed's CPU accelerator with the torch CPU process group, one
process (launcher: python). The JIT build of DeepSpeed's CPU shared-memory
collective op is skipped (it only speeds up collectives).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29643")
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
        # BUG: under zero.Init self.proj is already partitioned here, so this
        # copies its empty (0,) placeholder instead of the bias values
        self.gate = nn.Parameter(self.proj.bias.data.clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x) * self.gate


def main() -> int:
    deepspeed.init_distributed()
    with deepspeed.zero.Init(config_dict_or_path=DS_CONFIG):
        model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), GatedHead())
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

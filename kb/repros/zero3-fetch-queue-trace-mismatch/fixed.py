"""Fixed: the parameter read across modules is registered with ZeRO-3 up front,
so every trace has it and the parameter set of the module never changes.

Same model and batches as repro.py. ``deepspeed.zero.register_external_parameter``
(called before ``deepspeed.initialize``) tells ZeRO-3 that ``TinyVLM``'s own
forward needs ``visual.proj.weight``: it is gathered with the module on every
step, recorded in the first trace, and the image batch no longer adds a
parameter the trace does not know. (Reading the weight through the submodule's
own forward, or on every batch, works as well.)

CPU only: DeepSpeed's CPU accelerator with the torch CPU process group, one
process (launcher: python); ``stage3_param_persistence_threshold: 0`` makes
the tiny model's parameters partitioned like a large model's. The JIT build of
DeepSpeed's CPU shared-memory collective op is skipped (it only speeds up
collectives and takes minutes to compile on a fresh machine).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29682")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


class Visual(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x)


class TinyVLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(8, 8)
        self.visual = Visual()
        self.head = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, has_image: bool) -> torch.Tensor:
        h = self.embed(x)
        if has_image:
            h = h * self.visual.proj.weight.mean()
        return self.head(h)


def main() -> int:
    torch.manual_seed(0)
    deepspeed.init_distributed(dist_backend="gloo")
    model = TinyVLM()
    # the fix: declare the cross-module read, so ZeRO-3 gathers and traces it every step
    deepspeed.zero.register_external_parameter(model, model.visual.proj.weight)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    batches = [False, False, False, True, False, True]
    for step, has_image in enumerate(batches):
        loss = engine(torch.randn(2, 8), has_image).pow(2).mean()
        engine.backward(loss)
        engine.step()
        print(f"step {step} (image batch: {has_image}) done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

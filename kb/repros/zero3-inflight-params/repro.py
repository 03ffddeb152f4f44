"""Reproduce: DeepSpeed ZeRO-3 "RuntimeError: still have inflight params" when
the order of submodules changes from one step to the next.

ZeRO-3 records the order in which submodules run during the first step and
then prefetches the parameters of the modules it expects next. Here forward
skips ``fc2`` on some steps (data-dependent control flow, like MoE routing or
generate() with a KV cache). The prefetched parameters of the module that did
not run are still "in flight" when the step ends, and DeepSpeed < 0.15.3
raises in reset_step.

Needs one CUDA GPU and deepspeed 0.14.x (launcher: python, one process).
Planned for a GPU worker; not verified on the CPU-only machine where the
article was written.
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29651")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

PREFETCH_BUCKET = 50_000_000  # DeepSpeed's default prefetching

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "zero_optimization": {
        "stage": 3,
        "stage3_param_persistence_threshold": 0,
        "stage3_prefetch_bucket_size": PREFETCH_BUCKET,
    },
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(1024, 1024)
        self.fc2 = nn.Linear(1024, 1024)
        self.fc3 = nn.Linear(1024, 1)

    def forward(self, x: torch.Tensor, use_fc2: bool) -> torch.Tensor:
        x = torch.relu(self.fc1(x))
        if use_fc2:  # data-dependent: the module order differs between steps
            x = torch.relu(self.fc2(x))
        return self.fc3(x)


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    model = Net()
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    for step in range(6):
        x = torch.randn(2, 1024, device=engine.device)
        loss = engine(x, use_fc2=step % 3 != 2).pow(2).mean()
        engine.backward(loss)
        engine.step()
        print("step", step, "loss", loss.item(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

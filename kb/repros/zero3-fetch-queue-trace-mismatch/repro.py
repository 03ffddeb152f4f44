"""Reproduce: ZeRO-3's recorded parameter trace no longer fits the model, and
the prefetcher stops with "RuntimeError: tracing error at step N: ... expected
the next K parameters in the parameter fetch queue to be (...) but got ()".

After the first training step, DeepSpeed ZeRO-3 replays a trace of which
submodule ran when and which parameters each one needed, and prefetches along
it. A change in the *order* of submodules only invalidates the trace (it is
recorded again); a change in the *parameters a submodule needs* does not. The
usual way to get one: a module's forward reads another module's parameter
directly (a shared or tied weight, a dtype or device probe like
``self.visual.conv1.weight.dtype``), and only on some batches (dynamic control
flow: image batches in a mixed text/image run, a branch taken after a warm-up
step). ZeRO-3 then registers that parameter as an *external parameter* of the
running module at that moment, so the module needs one parameter more than the
trace says, and the next fetch of that module (here its backward) fails.

CPU only: DeepSpeed's CPU accelerator with the torch CPU process group, one
process (launcher: python); ``stage3_param_persistence_threshold: 0`` makes
the tiny model's parameters partitioned like a large model's. The JIT build of
DeepSpeed's CPU shared-memory collective op is skipped (it only speeds up
collectives and takes minutes to compile on a fresh machine).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29681")
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
            # reads another module's weight directly, on image batches only
            h = h * self.visual.proj.weight.mean()
        return self.head(h)


def main() -> int:
    torch.manual_seed(0)
    deepspeed.init_distributed(dist_backend="gloo")
    model = TinyVLM()
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
    batches = [False, False, False, True, False]  # text, text, text, then an image batch
    for step, has_image in enumerate(batches):
        loss = engine(torch.randn(2, 8), has_image).pow(2).mean()
        engine.backward(loss)
        engine.step()
        print(f"step {step} (image batch: {has_image}) done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

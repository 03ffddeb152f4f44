"""Fixed: the modules trained together are one nn.Module given to
``deepspeed.initialize``, and the optimizer holds only that module's
parameters; the second way, the other module keeps its own optimizer outside
DeepSpeed (frozen here, as the usual case: a module that is not trained has
no parameters in the optimizer).

Both train two steps with ZeRO-2.
CPU only: DeepSpeed 0.19.8's CPU accelerator, one process (launcher: python).
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29698")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import sys  # noqa: E402

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}


class Both(nn.Module):
    """The two trained modules as one model, so the engine knows every parameter."""

    def __init__(self) -> None:
        super().__init__()
        self.unet = nn.Linear(8, 8)
        self.text_encoder = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return self.unet(x) + self.text_encoder(t)


torch.manual_seed(0)
deepspeed.init_distributed(dist_backend="gloo")

# 1. one wrapper module, one optimizer over exactly its parameters
model = Both()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
engine, _, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=DS_CONFIG)
for _ in range(2):
    loss = engine(torch.randn(2, 8), torch.randn(2, 8)).pow(2).mean()
    engine.backward(loss)
    engine.step()
print("wrapper module trained:", sorted(n for n, _ in engine.module.named_parameters()), flush=True)

# 2. the other module frozen: the optimizer takes only the engine model's parameters
unet, text_encoder = nn.Linear(8, 8), nn.Linear(8, 8)
text_encoder.requires_grad_(False)
optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
engine, _, _, _ = deepspeed.initialize(model=unet, optimizer=optimizer, config=DS_CONFIG)
for _ in range(2):
    loss = (engine(torch.randn(2, 8)) + text_encoder(torch.randn(2, 8))).pow(2).mean()
    engine.backward(loss)
    engine.step()
print("unet trained, text encoder frozen", flush=True)

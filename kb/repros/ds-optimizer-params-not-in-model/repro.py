"""Reproduce: one optimizer over the parameters of two modules, only one of
which is given to ``deepspeed.initialize(model=...)``, with ZeRO-1/2:
"KeyError: Parameter containing: tensor(...)".

The engine names every parameter of the model it wraps
(``self.param_names = {param: name for name, param in model.named_parameters()}``).
ZeRO-1/2 partitions the optimizer's parameter groups and looks each parameter
up in that map (``_create_param_mapping`` in DeepSpeed 0.19.8, other lookups
in older releases); a parameter that belongs to another module (a text
encoder trained next to a UNet, a value head, a second network) is not in it.
With ZeRO-3 the same setup fails on the foreign parameter's missing ZeRO-3
attributes instead.

CPU only: DeepSpeed 0.19.8's CPU accelerator with the torch CPU process group,
one process (launcher: python). The JIT build of DeepSpeed's CPU shared-memory
op is skipped.
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29697")
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

torch.manual_seed(0)
deepspeed.init_distributed(dist_backend="gloo")
unet = nn.Linear(8, 8)
text_encoder = nn.Linear(8, 8)
params = list(unet.parameters()) + list(text_encoder.parameters())  # two modules' parameters
optimizer = torch.optim.AdamW(params, lr=1e-4)
engine, _, _, _ = deepspeed.initialize(model=unet, optimizer=optimizer, config=DS_CONFIG)  # fails here

"""Fixed: every key is one this DeepSpeed version knows, in the section it
belongs to: ``"offload_optimizer": {"device": "cpu"}`` inside
``zero_optimization``, and the loss-scaling keys only under ``fp16`` (the
``bf16`` section takes ``enabled`` and a few bf16 options only).

Before training, the script validates the config the way DeepSpeed does
(``DeepSpeedConfig``) and prints the ZeRO section as DeepSpeed read it, then
trains two steps with ZeRO-2 and optimizer offload to the CPU.
CPU only: DeepSpeed 0.19.8's CPU accelerator, one process (launcher: python);
torch's AdamW via ``torch_adam`` (no compiled ops).
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29694")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import sys  # noqa: E402

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from deepspeed.runtime.config import DeepSpeedConfig  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
    "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},
    "zero_force_ds_cpu_optimizer": False,  # torch AdamW on CPU instead of compiling CPUAdam
}

deepspeed.init_distributed(dist_backend="gloo")
checked = DeepSpeedConfig(dict(DS_CONFIG))
print("zero config:", checked.zero_config.stage, checked.zero_config.offload_optimizer.device, flush=True)

model = nn.Linear(8, 8)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)
for _ in range(2):
    loss = engine(torch.randn(2, 8)).pow(2).mean()
    engine.backward(loss)
    engine.step()
print("trained with", type(engine.optimizer).__name__, flush=True)

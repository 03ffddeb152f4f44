"""Reproduce: a key in the DeepSpeed config that this DeepSpeed version does
not know: "ValidationError: 1 validation error for DeepSpeedZeroConfig ...
Extra inputs are not permitted [type=extra_forbidden]" (pydantic 2; pydantic 1
says "extra fields not permitted (type=value_error.extra)").

DeepSpeed parses each section of the ds config into a pydantic model
(DeepSpeedZeroConfig for "zero_optimization", DeepSpeedBF16Config for "bf16",
DeepSpeedFP16Config, offload configs, DeepSpeedInferenceConfig, ...) whose
model_config has ``extra="forbid"``: a misspelt key, a key put in the wrong
section, or a key from a newer DeepSpeed release is refused when the config is
read. Here: accelerate's plugin option name ``offload_optimizer_device`` written
into ``zero_optimization`` (the ds config spells it
``"offload_optimizer": {"device": "cpu"}``). The deprecated
``stage3_gather_fp16_weights_on_model_save`` next to it is accepted (renamed
fields stay readable); unknown ones are not.

CPU only: DeepSpeed 0.19.8, one process (launcher: python); the config is read
before any engine or optimizer is built.
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29693")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import sys  # noqa: E402

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
    "zero_optimization": {
        "stage": 2,
        "stage3_gather_fp16_weights_on_model_save": True,  # deprecated name: accepted
        "offload_optimizer_device": "cpu",  # not a DeepSpeedZeroConfig field: refused
    },
}

deepspeed.init_distributed(dist_backend="gloo")
model = nn.Linear(8, 8)
deepspeed.initialize(model=model, model_parameters=model.parameters(), config=DS_CONFIG)  # fails here

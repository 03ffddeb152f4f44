"""Fixed: the DeepSpeed config has a "zero_optimization" section. Stage 0
(no ZeRO) is enough to pass the check; stage 2 or 3 is what the config is
usually meant for. The Trainer fills the "auto" values from its arguments.

Prints the config as the Trainer resolved it and the ZeRO stage accelerate's
plugin read from it.
CPU only: transformers 4.57.6, accelerate 1.15.0, DeepSpeed 0.19.8, one
process (launcher: python).
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29696")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import tempfile  # noqa: E402

from transformers import TrainingArguments  # noqa: E402

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "bf16": {"enabled": "auto"},
    "zero_optimization": {"stage": 0},
}

with tempfile.TemporaryDirectory() as out:
    args = TrainingArguments(output_dir=out, deepspeed=DS_CONFIG, report_to=[], use_cpu=True)
    print("resolved ds config:", args.hf_deepspeed_config.config, flush=True)
    print("accelerate plugin zero_stage:", args.deepspeed_plugin.zero_stage, flush=True)

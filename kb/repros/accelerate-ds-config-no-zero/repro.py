"""Reproduce: a DeepSpeed config without a "zero_optimization" section given
to the Hugging Face Trainer (or to accelerate): "ValueError: Please specify the
ZeRO optimization config in the DeepSpeed config."

``TrainingArguments(deepspeed=...)`` (``--deepspeed ds_config.json``) builds
accelerate's ``DeepSpeedPlugin(hf_ds_config=...)``; so does
``accelerate launch`` with ``deepspeed_config_file`` in its config.
``DeepSpeedPlugin.__post_init__`` fills a missing
``gradient_accumulation_steps`` with 1 but requires the ``zero_optimization``
key: the plugin reads the ZeRO stage and offload devices from it. DeepSpeed
itself would default to stage 0; accelerate refuses. (Older accelerate
releases took ``config_file=`` and said "... in the DeepSpeed config file.")

CPU only: transformers 4.57.6, accelerate 1.15.0, DeepSpeed 0.19.8, one
process (launcher: python); the check runs while the arguments are built,
before any model exists.
"""

import os

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29695")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import tempfile  # noqa: E402

from transformers import TrainingArguments  # noqa: E402

DS_CONFIG = {  # a config written for batch and precision only
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "bf16": {"enabled": "auto"},
}

with tempfile.TemporaryDirectory() as out:
    args = TrainingArguments(output_dir=out, deepspeed=DS_CONFIG, report_to=[], use_cpu=True)  # fails here
    print(args.hf_deepspeed_config.config)

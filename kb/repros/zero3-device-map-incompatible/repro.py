"""Reproduce: transformers "DeepSpeed Zero-3 is not compatible with passing a
`device_map`" (older: "... with `low_cpu_mem_usage=True` or with passing a
`device_map`").

A fine-tuning script loads its model with ``device_map="auto"`` (copied from an
inference example) while a DeepSpeed ZeRO-3 config is active: the HF
TrainingArguments / HfDeepSpeedConfig object created before loading makes
``is_deepspeed_zero3_enabled()`` true, and from_pretrained refuses, because
ZeRO-3 partitions the weights across ranks itself and a device map would
place them whole on devices.

CPU only: a tiny Llama saved to a temporary directory, DeepSpeed's config
object only (no engine) (launcher: python).
"""

import sys
import tempfile

from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM
from transformers.integrations import HfDeepSpeedConfig

DS_CONFIG = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3}}


def main() -> int:
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2)
    with tempfile.TemporaryDirectory() as tmp:
        LlamaForCausalLM(config).save_pretrained(tmp)
        dschf = HfDeepSpeedConfig(DS_CONFIG)  # what TrainingArguments(deepspeed=...) sets up  # noqa: F841
        model = AutoModelForCausalLM.from_pretrained(tmp, device_map="auto")  # BUG under ZeRO-3
        print("loaded", type(model).__name__, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

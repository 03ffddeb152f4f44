"""Reproduce: "ValueError: The model did not return a loss from the inputs, only
the following keys: logits,past_key_values".

``Trainer.compute_loss`` calls ``model(**inputs)`` and takes ``outputs["loss"]``.
A Hugging Face model computes that loss only when the batch carries its label
argument (``labels`` for a causal LM). Here the rows were tokenised into
``input_ids`` and ``attention_mask`` only and the default collator passes the
columns on as they are, so nothing in the batch is a label: the model returns
logits (and its cache) but no loss, and the first training step fails.

A tiny Llama is built from a config; the data are Python lists. CPU only, no
downloads (launcher: python).
"""

import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments  # noqa: E402


def tiny_model() -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2,
    )
    return LlamaForCausalLM(config)


def main() -> int:
    # BUG: tokenised text without labels; the default collator adds none
    rows = [{"input_ids": [1, 5, 7, 9, 2], "attention_mask": [1, 1, 1, 1, 1]} for _ in range(8)]
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, max_steps=2, per_device_train_batch_size=2,
            report_to=[], use_cpu=True, logging_steps=1, save_strategy="no",
        )
        trainer = Trainer(model=tiny_model(), args=args, train_dataset=rows)
        trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())

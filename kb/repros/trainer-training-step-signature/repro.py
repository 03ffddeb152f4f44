"""Reproduce: "MyTrainer.training_step() takes 3 positional arguments but 4 were given".

Since transformers 4.46 the training loop calls
``self.training_step(model, inputs, num_items_in_batch)`` with a third
positional argument (the number of label tokens in the accumulated step,
used to scale the loss). A subclass written for the older two-argument
signature ``training_step(self, model, inputs)`` (MiniCPM-V's, older TRL
trainers, many research repositories) fails on the first step.

A tiny Llama is built from a config; the data are Python lists. CPU only, no
downloads (launcher: python); needs transformers >= 4.46.
"""

import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments  # noqa: E402


class LoggingTrainer(Trainer):
    # BUG: the pre-4.46 signature; the loop now passes num_items_in_batch too
    def training_step(self, model, inputs):
        self.steps_seen = getattr(self, "steps_seen", 0) + 1
        return super().training_step(model, inputs)


def tiny_model() -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2,
    )
    return LlamaForCausalLM(config)


def main() -> int:
    rows = [{"input_ids": [1, 5, 7, 9, 2], "labels": [1, 5, 7, 9, 2]} for _ in range(8)]
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, max_steps=2, per_device_train_batch_size=2, gradient_accumulation_steps=2,
            report_to=[], use_cpu=True, logging_steps=1, save_strategy="no",
        )
        trainer = LoggingTrainer(model=tiny_model(), args=args, train_dataset=rows)
        trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())

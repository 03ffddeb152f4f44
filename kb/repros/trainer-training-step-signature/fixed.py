"""Fixed: override ``training_step`` with the current signature.

Same trainer as repro.py. The override takes ``num_items_in_batch`` as an
optional third argument and hands it to the parent, which keeps the
gradient-accumulation loss scaling of transformers >= 4.46 and still works on
older releases that call it with two. The script checks that every step went
through the override.

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
    # FIX: accept the third argument and pass it on
    def training_step(self, model, inputs, num_items_in_batch=None):
        self.steps_seen = getattr(self, "steps_seen", 0) + 1
        return super().training_step(model, inputs, num_items_in_batch)


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
        result = trainer.train()
        if getattr(trainer, "steps_seen", 0) != 4 or result.global_step != 2:
            print(f"override saw {getattr(trainer, 'steps_seen', 0)} micro-steps", file=sys.stderr)
            return 1
        print(f"trained {result.global_step} steps through the override, loss {result.training_loss:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

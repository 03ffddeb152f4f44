"""Reproduce: "MyTrainer.compute_loss() got an unexpected keyword argument
'num_items_in_batch'".

transformers 4.46 fixed the loss scaling under gradient accumulation by
counting the label tokens of all micro-batches of an optimizer step and
passing that count to the loss: ``Trainer.training_step`` now calls
``self.compute_loss(model, inputs, num_items_in_batch=...)``. A subclass that
overrides ``compute_loss`` with the old signature ``(self, model, inputs,
return_outputs=False)`` cannot take the new keyword, so the first training
step fails.

A tiny Llama is built from a config; the data are Python lists. CPU only, no
downloads (launcher: python); needs transformers >= 4.46.
"""

import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments  # noqa: E402


class WeightedLossTrainer(Trainer):
    # BUG: the pre-4.46 signature, written from an old tutorial
    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(**inputs)
        loss = outputs.loss * 1.0
        return (loss, outputs) if return_outputs else loss


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
        trainer = WeightedLossTrainer(model=tiny_model(), args=args, train_dataset=rows)
        trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())

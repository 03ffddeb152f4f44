"""Fixed: override ``compute_loss`` with the current signature.

Same trainer as repro.py. The override accepts ``num_items_in_batch`` (and
any keyword a later release adds) and forwards it to the model, so the loss
is normalised over the whole accumulated step as the stock Trainer does. The
script checks that training ran and logged a finite loss.

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
    # FIX: accept num_items_in_batch (transformers >= 4.46) and pass it on
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None, **kwargs):
        if num_items_in_batch is not None:
            inputs = {**inputs, "num_items_in_batch": num_items_in_batch}
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
        result = trainer.train()
        if not torch.isfinite(torch.tensor(result.training_loss)):
            print(f"bad loss {result.training_loss}", file=sys.stderr)
            return 1
        print(f"trained {result.global_step} steps, loss {result.training_loss:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

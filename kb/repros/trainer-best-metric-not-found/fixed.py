"""Fixed: the evaluation rows carry labels, so evaluate() reports eval_loss and
load_best_model_at_end can compare checkpoints by it.

The other fixes the article names: set ``metric_for_best_model`` to a key that
``compute_metrics`` returns, or to the prefixed name with several evaluation
datasets (``eval_<name>_loss``).

CPU only, no downloads (launcher: python).
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
    ids = [1, 5, 7, 9, 2]
    train_rows = [{"input_ids": ids, "labels": list(ids)} for _ in range(8)]
    eval_rows = [{"input_ids": ids, "labels": list(ids)} for _ in range(4)]  # FIX: labels, so eval_loss exists
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, max_steps=2, per_device_train_batch_size=2, per_device_eval_batch_size=2,
            eval_strategy="steps", eval_steps=1, save_strategy="steps", save_steps=1,
            load_best_model_at_end=True, metric_for_best_model="eval_loss",
            report_to=[], use_cpu=True, logging_steps=1,
        )
        trainer = Trainer(model=tiny_model(), args=args, train_dataset=train_rows, eval_dataset=eval_rows)
        trainer.train()
        print(f"best eval_loss {trainer.state.best_metric:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

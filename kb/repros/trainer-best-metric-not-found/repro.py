"""Reproduce: KeyError "The `metric_for_best_model` training argument is set to
'eval_loss', which is not found in the evaluation metrics".

``load_best_model_at_end=True`` compares checkpoints by
``metric_for_best_model``, which defaults to ``"loss"`` (read as
``eval_loss``). ``Trainer.evaluate`` reports ``eval_loss`` only when the model
returned a loss on the evaluation batches, and a model returns one only when the
batch has labels. Here the evaluation rows carry no labels, so the metrics have
``eval_runtime`` and friends but no ``eval_loss``: the first evaluation fails
while the Trainer looks for the best checkpoint (older transformers raise a bare
``KeyError: 'eval_loss'`` at the same place).

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
    ids = [1, 5, 7, 9, 2]
    train_rows = [{"input_ids": ids, "labels": list(ids)} for _ in range(8)]
    eval_rows = [{"input_ids": ids} for _ in range(4)]  # BUG: no labels, so no eval_loss
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, max_steps=2, per_device_train_batch_size=2, per_device_eval_batch_size=2,
            eval_strategy="steps", eval_steps=1, save_strategy="steps", save_steps=1,
            load_best_model_at_end=True,  # metric_for_best_model defaults to "loss"
            report_to=[], use_cpu=True, logging_steps=1,
        )
        trainer = Trainer(model=tiny_model(), args=args, train_dataset=train_rows, eval_dataset=eval_rows)
        trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())

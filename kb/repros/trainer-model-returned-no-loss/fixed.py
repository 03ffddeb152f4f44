"""Fixed: the batch carries labels, so the model returns a loss.

For causal language modelling the labels are the input ids (the model shifts
them by one itself); ``DataCollatorForLanguageModeling(tokenizer, mlm=False)``
builds them the same way, with padding set to -100. Here each row gets its
``labels`` column when it is tokenised.

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
    # FIX: every row has labels (a copy of input_ids for a causal LM)
    rows = [{"input_ids": ids, "attention_mask": [1] * len(ids), "labels": list(ids)} for _ in range(8)]
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, max_steps=2, per_device_train_batch_size=2,
            report_to=[], use_cpu=True, logging_steps=1, save_strategy="no",
        )
        trainer = Trainer(model=tiny_model(), args=args, train_dataset=rows)
        result = trainer.train()
    print(f"trained 2 steps, loss {result.training_loss:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "ValueError: Can't find a valid checkpoint at <output_dir>/checkpoint-4".

A run saves a checkpoint every two steps; the job is stopped while it writes
``checkpoint-4`` (preempted, out of disk, killed), so that folder has the
optimizer and trainer state but no model weights. Resuming from it, whether
named explicitly or picked as the newest ``checkpoint-*`` folder, makes
``Trainer._load_from_checkpoint`` look for a weights file
(``model.safetensors``, ``pytorch_model.bin``, a sharded index or an adapter
file), find none, and stop.

CPU only, no downloads: a one-layer Llama built from a config and random
token sequences; the interrupted save is simulated by deleting the weights
file of the last checkpoint (launcher: python).
"""

import os
import sys
import tempfile

import torch
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments


def make_trainer(output_dir: str, max_steps: int) -> Trainer:
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2)
    rows = [{"input_ids": ids, "labels": ids} for ids in torch.randint(0, 32, (16, 8))]
    args = TrainingArguments(output_dir=output_dir, per_device_train_batch_size=2, max_steps=max_steps, save_steps=2,
                             logging_steps=2, report_to=[], use_cpu=True)
    return Trainer(model=LlamaForCausalLM(config), args=args, train_dataset=rows)


def main() -> int:
    output_dir = tempfile.mkdtemp()
    make_trainer(output_dir, max_steps=4).train()  # the first job: checkpoint-2, then checkpoint-4
    os.remove(os.path.join(output_dir, "checkpoint-4", "model.safetensors"))  # the save that was cut short
    print(sorted(os.listdir(os.path.join(output_dir, "checkpoint-4"))))
    resume = os.path.join(output_dir, "checkpoint-4")  # BUG: the newest folder is not a complete checkpoint
    make_trainer(output_dir, max_steps=6).train(resume_from_checkpoint=resume)
    return 0


if __name__ == "__main__":
    sys.exit(main())

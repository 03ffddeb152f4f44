"""Reproduce: transformers "Please correct the following DeepSpeed config values
that mismatch TrainingArguments values".

A fine-tuning script passes a DeepSpeed config to the HF Trainer whose batch
and learning-rate values are written out as numbers (copied from another
run), while the command line asks for others. transformers fills every
"auto" value from TrainingArguments and records each hard-coded value that
disagrees; when ``Trainer.train()`` reaches ``deepspeed_init``,
``trainer_config_finalize`` raises the ValueError that lists them as
``- ds <key>=<value> vs hf <argument>=<value>``.

CPU only: DeepSpeed picks its CPU accelerator and torch's gloo/CPU process
group; one process (launcher: python). The JIT build of DeepSpeed's CPU
shared-memory collective op is skipped because it only speeds up collectives
and takes minutes to compile on a fresh machine (as in the other DeepSpeed
repros).
"""

import os
import sys
import tempfile

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29641")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from transformers import Trainer, TrainingArguments  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {  # copied from another run: batch and learning rate hard-coded
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": "auto",
    "train_batch_size": "auto",
    "optimizer": {"type": "AdamW", "params": {"lr": 3e-5, "torch_adam": True}},
    "fp16": {"enabled": "auto"},  # from TrainingArguments: fp32 here (DeepSpeed's own default is fp16)
    "bf16": {"enabled": "auto"},
    "zero_optimization": {"stage": 0},
}


class TinyRegressor(torch.nn.Module):
    """The smallest model a Trainer accepts: forward returns a dict with ``loss``."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"loss": torch.nn.functional.mse_loss(self.linear(x).squeeze(-1), y)}


def main() -> int:
    torch.manual_seed(0)
    data = [{"x": torch.randn(4), "y": torch.randn(())} for _ in range(32)]
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            per_device_train_batch_size=8,  # the command line says 8, the config 4
            learning_rate=1e-4,  # and another learning rate
            max_steps=2,
            report_to=[],
            save_strategy="no",
            disable_tqdm=True,
            deepspeed=DS_CONFIG,
        )
        result = Trainer(model=TinyRegressor(), args=args, train_dataset=data).train()
    print("steps:", result.global_step)
    return 0


if __name__ == "__main__":
    sys.exit(main())

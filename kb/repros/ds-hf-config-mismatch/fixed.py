"""Fixed: the keys the Trainer also sets are "auto" in the DeepSpeed config.

The article's fix: every DeepSpeed key that has a TrainingArguments
counterpart (micro batch size, learning rate, ...) is set to "auto", so
transformers fills it from the arguments and there is one source of truth.
Same script as repro.py otherwise; DeepSpeed's engine then trains the tiny
model for two optimiser steps on CPU and the script checks the micro batch
DeepSpeed used and that the loss is finite.

CPU only: DeepSpeed picks its CPU accelerator and torch's gloo/CPU process
group; one process (launcher: python). The JIT build of DeepSpeed's CPU
shared-memory collective op is skipped because it only speeds up collectives
and takes minutes to compile on a fresh machine (as in the other DeepSpeed
repros).
"""

import math
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

DS_CONFIG = {  # FIX: "auto" wherever TrainingArguments has the value
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "train_batch_size": "auto",
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "torch_adam": True}},
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
            per_device_train_batch_size=8,
            learning_rate=1e-4,
            max_steps=2,
            report_to=[],
            save_strategy="no",
            disable_tqdm=True,
            deepspeed=DS_CONFIG,
        )
        trainer = Trainer(model=TinyRegressor(), args=args, train_dataset=data)
        result = trainer.train()
        micro_batch = trainer.model_wrapped.train_micro_batch_size_per_gpu()
    print("steps:", result.global_step, "micro batch:", micro_batch, "loss:", round(result.training_loss, 4))
    if result.global_step != 2 or micro_batch != 8 or not math.isfinite(result.training_loss):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: accelerate installed in the interpreter that runs the script.

The fix is ``python -m pip install -U "accelerate>=0.26.0"`` (or
``transformers[torch]``) in the environment that runs training; this package
set has ``accelerate==1.15.0`` next to ``transformers==4.57.6``, a pair that
moves together. Same script as repro.py without the line that hid
accelerate: the arguments build, and a Trainer runs two optimiser steps of a
tiny regression model, then the script checks that the loss is finite.

CPU only, no downloads (launcher: python); needs transformers and accelerate.
"""

import math
import sys
import tempfile

import accelerate
import torch
import transformers
from transformers import Trainer, TrainingArguments


class TinyRegressor(torch.nn.Module):
    """The smallest model a Trainer accepts: forward returns a dict with ``loss``."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"loss": torch.nn.functional.mse_loss(self.linear(x).squeeze(-1), y)}


def main() -> int:
    print("accelerate", accelerate.__version__, "transformers", transformers.__version__)
    torch.manual_seed(0)
    data = [{"x": torch.randn(4), "y": torch.randn(())} for _ in range(8)]
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            per_device_train_batch_size=2,
            max_steps=2,
            report_to=[],
            save_strategy="no",
            use_cpu=True,
            disable_tqdm=True,
        )
        result = Trainer(model=TinyRegressor(), args=args, train_dataset=data).train()
    print(
        "device:",
        args.device,
        "steps:",
        result.global_step,
        "loss:",
        round(result.training_loss, 4),
    )
    if result.global_step != 2 or not math.isfinite(result.training_loss):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

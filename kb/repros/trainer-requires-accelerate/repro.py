"""Reproduce: "Using the `Trainer` with `PyTorch` requires `accelerate>=0.26.0`".

``pip install transformers`` does not install accelerate, yet TrainingArguments
resolves its device through accelerate's PartialState: building the arguments
(before any model or data is touched) raises the ImportError. transformers
decides once, when it is imported, whether accelerate is importable
(``importlib.util.find_spec``), so the script fails the same way in every
environment that lacks it.

This package set installs accelerate (fixed.py needs it, and one environment
serves both scripts), so the script first takes it away the way a missing
install looks to the interpreter: ``sys.modules["accelerate"] = None`` makes
``find_spec`` report nothing and ``import accelerate`` fail, before
transformers is imported. The training script itself is unchanged.

CPU only, no downloads (launcher: python); needs transformers >= 4.30.
"""

import sys
import tempfile

sys.modules["accelerate"] = None  # type: ignore[assignment]  # stands for: accelerate not installed

from transformers import TrainingArguments  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out, per_device_train_batch_size=2, max_steps=2, report_to=[]
        )
        print("device:", args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())

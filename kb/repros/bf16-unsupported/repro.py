"""Reproduce: bf16 training arguments where torch has no bf16-capable GPU.

``TrainingArguments(bf16=True)`` (and TRL's ``SFTConfig``/``GRPOConfig``,
which inherit from it) validates the precision when it is constructed: unless
``use_cpu`` is set, ``is_torch_bf16_gpu_available()`` must be True, else
``ValueError: Your setup doesn't support bf16/gpu`` (transformers 5 adds "You
need to assign use_cpu if you want to train the model on CPU."). Older
releases refused pre-Ampere GPUs (V100, T4) here; with recent torch, whose
``torch.cuda.is_bf16_supported()`` also counts emulation, the usual reason is
that torch sees no usable CUDA GPU at all: a CPU-only wheel, a driver older
than the wheel's CUDA, ``CUDA_VISIBLE_DEVICES`` empty, a container started
without GPUs.

The script builds the arguments of a typical fine-tuning recipe with
``bf16=True``. It hides any GPU from torch first (``CUDA_VISIBLE_DEVICES=""``)
so that it fails the same way on every worker: that is the "torch cannot see
the GPU" case.

CPU only (launcher: python); needs transformers and torch.
"""

import os
import tempfile

os.environ["CUDA_VISIBLE_DEVICES"] = ""  # torch sees no GPU, as with a CPU wheel or a broken driver
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from transformers import TrainingArguments  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            per_device_train_batch_size=4,
            gradient_accumulation_steps=8,
            learning_rate=2e-5,
            bf16=True,  # copied from a recipe written for A100/H100
            report_to="none",
        )
        print(args.bf16)


if __name__ == "__main__":
    main()

"""The fix applied: choose the precision from what the hardware offers.

bf16 where torch sees a GPU with native bf16 (compute capability >= 8.0),
fp16 on an older GPU, and plain fp32 on the CPU (``use_cpu=True``) when there
is no GPU at all; the script prints which one it picked, builds the same
``TrainingArguments`` as ``repro.py`` with it and runs one optimizer step of a
tiny model under that precision, so the choice is exercised, not only
accepted.

Runs with or without a GPU (launcher: python); needs transformers and torch.
"""

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import TrainingArguments  # noqa: E402


def precision() -> dict[str, bool]:
    if torch.cuda.is_available():
        if torch.cuda.is_bf16_supported(including_emulation=False):
            return {"bf16": True}
        return {"fp16": True}  # V100, T4, RTX 20xx: no native bf16
    return {"use_cpu": True}  # no usable GPU: train in fp32 on the CPU (or fix the driver first)


def main() -> None:
    chosen = precision()
    print(f"precision: {chosen}")
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            per_device_train_batch_size=4,
            gradient_accumulation_steps=8,
            learning_rate=2e-5,
            report_to="none",
            **chosen,
        )
        device = "cpu" if args.use_cpu else "cuda"
        dtype = torch.bfloat16 if args.bf16 else torch.float16 if args.fp16 else torch.float32
        model = torch.nn.Linear(8, 2).to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        scaler = torch.amp.GradScaler(device, enabled=args.fp16)
        with torch.autocast(device, dtype=dtype, enabled=dtype != torch.float32):
            loss = model(torch.randn(4, 8, device=device)).float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        print(f"one step on {device} in {dtype}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

"""Fixed: import the name from where it lives now.

Same program as repro.py. ``AdamW`` comes from ``torch.optim`` (what the
removed transformers class had long been deprecated in favour of); the
scheduler helper is still exported by transformers. The script runs one
optimizer and scheduler step to show the pair works.

CPU only, no downloads (launcher: python); needs transformers >= 4.0.
"""

import sys

import torch
from torch.optim import AdamW  # FIX: the optimizer lives in torch
from transformers import get_linear_schedule_with_warmup


def main() -> int:
    model = torch.nn.Linear(4, 2)
    optimizer = AdamW(model.parameters(), lr=1e-3)
    scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=1, num_training_steps=10)
    model(torch.randn(3, 4)).sum().backward()
    optimizer.step()
    scheduler.step()
    print(type(optimizer).__name__, type(scheduler).__name__, scheduler.get_last_lr())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "ImportError: cannot import name 'AdamW' from 'transformers'".

The Hugging Face libraries remove names on a schedule: transformers' own
``AdamW`` (deprecated in favour of ``torch.optim.AdamW`` since 4.x) is gone,
``top_k_top_p_filtering`` was removed in 4.39, PEFT dropped
``prepare_model_for_int8_training`` in 0.10, TRL removed helpers such as
``PeftSavingCallback``. A script written against an older release imports one
of them and stops at its first line; the installed package is newer than the
code.

CPU only, no downloads (launcher: python); needs transformers >= 4.57.
"""

import sys

import torch
from transformers import AdamW, get_linear_schedule_with_warmup  # BUG: AdamW no longer exported


def main() -> int:
    model = torch.nn.Linear(4, 2)
    optimizer = AdamW(model.parameters(), lr=1e-3)
    scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=1, num_training_steps=10)
    print(type(optimizer).__name__, type(scheduler).__name__)
    return 0


if __name__ == "__main__":
    sys.exit(main())

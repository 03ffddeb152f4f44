"""Fixed: the loss module is created without arguments and called on (logits, labels).

The loss module is constructed with the batch instead of being called on it:
``nn.CrossEntropyLoss(logits, labels)`` passes the tensors as the
constructor's ``weight`` and ``size_average`` arguments, and the legacy
``size_average`` handling evaluates ``if size_average ...`` on a tensor of 8
labels.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Linear(16, 4)
    x, labels = torch.randn(8, 16), torch.randint(0, 4, (8,))
    logits = model(x)
    criterion = nn.CrossEntropyLoss()  # FIX: build the module once ...
    loss = criterion(logits, labels)  # ... then call it on the batch
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

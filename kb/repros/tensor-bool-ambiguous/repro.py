"""Reproduce: "Boolean value of Tensor with more than one value is ambiguous".

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
    loss = nn.CrossEntropyLoss(logits, labels)  # BUG: builds the module with tensors as arguments
    loss.backward()
    return 0


if __name__ == "__main__":
    sys.exit(main())

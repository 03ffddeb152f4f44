"""Reproduce: "'DataParallel' object has no attribute 'config'".

After wrapping the model for multi-GPU training, the script keeps using
attributes and methods of the original model on the wrapper
(``model.config``, ``model.generate``, ``model.save_pretrained``).
``nn.DataParallel`` (and ``DistributedDataParallel``) only forwards
``forward()``; everything else lives on ``model.module``. (Wrapping works on a
CPU-only machine too: DataParallel then simply calls the module.)

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


class TinyClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.config = {"num_labels": 4, "hidden_size": 16}
        self.body = nn.Linear(16, 16)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def main() -> int:
    torch.manual_seed(0)
    model = nn.DataParallel(TinyClassifier())
    logits = model(torch.randn(8, 16))
    num_labels = model.config["num_labels"]  # BUG: the wrapper has no `config`
    print(logits.shape, num_labels)
    return 0


if __name__ == "__main__":
    sys.exit(main())

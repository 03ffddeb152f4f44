"""Reproduce: Lightning refuses a GPU request on a machine where torch sees no GPU.

The Trainer is configured for a GPU (``accelerator="gpu"``), as in the
project's config, but this interpreter's torch has no usable CUDA device
(here: the CPU build; on GPU machines, a hidden GPU or a CPU-only wheel).
Lightning checks the request when the Trainer is built and raises
``MisconfigurationException: No supported gpu backend found!`` before any
training starts. With explicit device indices the same situation reads
"You requested gpu: [0] But your machine only has: []".

CPU only, tiny LightningModule (launcher: python).
"""

import sys

import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Tiny(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def main() -> int:
    data = DataLoader(TensorDataset(torch.randn(32, 8), torch.randn(32, 1)), batch_size=8)
    trainer = L.Trainer(
        accelerator="gpu", devices=1,  # BUG: assumes a visible CUDA GPU
        max_epochs=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
    )
    trainer.fit(Tiny(), data)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: let Lightning pick what exists, or ask only when a GPU is visible.

Same program as repro.py. ``accelerator="auto"`` with ``devices="auto"``
uses the GPUs torch can see and falls back to the CPU otherwise; a job that
must run on a GPU should instead check ``torch.cuda.is_available()`` and
fix the environment (see the article).
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
        accelerator="auto", devices="auto",  # FIX: use what torch can actually see
        max_epochs=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
    )
    trainer.fit(Tiny(), data)
    print("trained on", trainer.strategy.root_device, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

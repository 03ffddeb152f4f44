"""Reproduce: a *_step_end hook written with a batch_idx that Lightning 1.x does not pass.

repro.py runs in the environment of ``repro.requires.packages``: PyTorch
Lightning 1.9.5 (and a setuptools that still ships pkg_resources) next to
torch 2.13.0 CPU. Lightning 1.x calls ``training_step_end(step_output)``
with one argument, the value ``training_step`` returned (the outputs of all
devices under DP); the module defines ``training_step_end(self, outputs,
batch_idx)`` like a batch hook, so the call fails: "training_step_end()
missing 1 required positional argument: 'batch_idx'".

CPU only, one process (launcher: python).
"""

from importlib.metadata import version

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset

print(f"pytorch-lightning {version('pytorch-lightning')}, torch {version('torch')}", flush=True)


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return {"loss": torch.nn.functional.mse_loss(self.layer(x), y)}

    def training_step_end(self, outputs, batch_idx):  # Lightning passes only the step's output
        return outputs["loss"].mean()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


data = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
trainer = pl.Trainer(
    max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False,
    enable_progress_bar=False, enable_model_summary=False,
)  # fmt: skip
trainer.fit(Regressor(), DataLoader(data, batch_size=4))  # fails after the first training_step

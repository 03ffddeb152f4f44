"""Reproduce: PyTorch Lightning 1.x passes an extra positional argument to training_step.

repro.py runs in the environment of ``repro.requires.packages``: PyTorch
Lightning 1.9.5 (and a setuptools that still ships pkg_resources, which
lightning_fabric 1.9 imports) next to torch 2.13.0 CPU. The module sets
``truncated_bptt_steps``, so Lightning 1.x adds the hidden state to the
step's arguments (``_build_training_step_kwargs``) and calls
``training_step(batch, batch_idx, hiddens)`` positionally, but the module's
``training_step(self, batch, batch_idx)`` takes no third argument:
"training_step() takes 3 positional arguments but 4 were given". Several
optimizers in Lightning < 1.3 (``optimizer_idx``) and several validation
dataloaders in 1.x (``dataloader_idx``) fail the same way.

CPU only, one process (launcher: python).
"""

from importlib.metadata import version

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset

print(f"pytorch-lightning {version('pytorch-lightning')}, torch {version('torch')}", flush=True)


class Sequence(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(4, 8, batch_first=True)
        self.head = torch.nn.Linear(8, 1)
        self.truncated_bptt_steps = 5  # Lightning 1.x now passes `hiddens` to training_step

    def training_step(self, batch, batch_idx):  # no `hiddens` parameter
        x, y = batch
        out, _ = self.rnn(x)
        return torch.nn.functional.mse_loss(self.head(out), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


data = TensorDataset(torch.randn(8, 10, 4), torch.randn(8, 10, 1))
trainer = pl.Trainer(
    max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False,
    enable_progress_bar=False, enable_model_summary=False,
)  # fmt: skip
trainer.fit(Sequence(), DataLoader(data, batch_size=4))  # fails in the first training step

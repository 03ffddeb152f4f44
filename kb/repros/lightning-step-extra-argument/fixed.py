"""Fixed: the step takes the argument Lightning passes (hiddens) and returns the new hidden state.

Same environment as repro.py (PyTorch Lightning 1.9.5, torch 2.13.0 CPU).
With ``truncated_bptt_steps`` set, Lightning 1.x splits each batch along
time and calls ``training_step(batch, batch_idx, hiddens)``; the step
accepts ``hiddens``, starts from it and returns ``{"loss": ..., "hiddens":
...}`` so the next split continues the sequence. The same rule fixes the
other extra arguments: ``dataloader_idx=0`` in ``validation_step`` with
several validation dataloaders, ``optimizer_idx`` with several optimizers in
old Lightning.

CPU only, one process (launcher: python).
"""

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class Sequence(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(4, 8, batch_first=True)
        self.head = torch.nn.Linear(8, 1)
        self.truncated_bptt_steps = 5

    def training_step(self, batch, batch_idx, hiddens):
        x, y = batch
        out, hiddens = self.rnn(x, hiddens)
        loss = torch.nn.functional.mse_loss(self.head(out), y)
        return {"loss": loss, "hiddens": hiddens.detach()}

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


data = TensorDataset(torch.randn(8, 10, 4), torch.randn(8, 10, 1))
trainer = pl.Trainer(
    max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False,
    enable_progress_bar=False, enable_model_summary=False,
)  # fmt: skip
trainer.fit(Sequence(), DataLoader(data, batch_size=4))
print(f"trained {trainer.global_step} steps")

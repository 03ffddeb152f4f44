"""Fixed: the per-batch work moves to on_train_batch_end, which does receive batch_idx.

Same environment as repro.py (PyTorch Lightning 1.9.5, torch 2.13.0 CPU).
``training_step_end`` is dropped (Lightning 2.0 removed it and no longer
calls it at all); what needed ``batch_idx`` goes to
``on_train_batch_end(outputs, batch, batch_idx)``, whose signature is the
same in 1.x and 2.x.

CPU only, one process (launcher: python).
"""

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)
        self.seen = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        return {"loss": torch.nn.functional.mse_loss(self.layer(x), y)}

    def on_train_batch_end(self, outputs, batch, batch_idx):
        self.seen.append((batch_idx, float(outputs["loss"])))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


data = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
model = Regressor()
trainer = pl.Trainer(
    max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False,
    enable_progress_bar=False, enable_model_summary=False,
)  # fmt: skip
trainer.fit(model, DataLoader(data, batch_size=4))
assert [index for index, _ in model.seen] == [0, 1], model.seen
print(f"batch ends seen: {model.seen}")

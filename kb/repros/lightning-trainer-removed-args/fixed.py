"""Fixed: the same Trainer with the Lightning 2.x spelling of each argument.

Same environment as repro.py (lightning 2.5.6, torch 2.13.0 CPU).
``weights_save_path`` becomes ``default_root_dir`` (or a ModelCheckpoint's
``dirpath``), ``gpus=0`` becomes ``accelerator="cpu"`` (``gpus=N`` would be
``accelerator="gpu", devices=N``), and the Trainer builds.

CPU only, one process (launcher: python).
"""

import lightning.pytorch as pl
from lightning.pytorch.callbacks import ModelCheckpoint

trainer = pl.Trainer(
    max_epochs=1,
    default_root_dir="checkpoints/",
    accelerator="cpu",
    devices=1,
    callbacks=[ModelCheckpoint(dirpath="checkpoints/")],
    logger=False,
)
print(f"built a Trainer on {trainer.accelerator.__class__.__name__}, root {trainer.default_root_dir}")

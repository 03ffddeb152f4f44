"""Reproduce: a Trainer argument that Lightning removed (weights_save_path, gpus, ...).

repro.py runs in the environment of ``repro.requires.packages``: lightning
2.5.6 next to torch 2.13.0 CPU. The Trainer is built with arguments written
for Lightning 1.x: ``weights_save_path`` (deprecated in 1.6, removed in 1.8)
and ``gpus`` (removed in 2.0). ``Trainer.__init__`` no longer has these
parameters, so Python rejects the call before Lightning runs any code:
"Trainer.__init__() got an unexpected keyword argument 'weights_save_path'".

CPU only, one process (launcher: python).
"""

from importlib.metadata import version

import lightning.pytorch as pl

print(f"lightning {version('lightning')}, torch {version('torch')}", flush=True)

trainer = pl.Trainer(max_epochs=1, weights_save_path="checkpoints/", gpus=0)  # 1.x arguments
print(trainer)

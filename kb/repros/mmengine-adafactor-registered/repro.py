"""Reproduce: mmengine < 0.10.6 with transformers installed on torch >= 2.5: Adafactor registered twice.

repro.py runs in the environment of ``repro.requires.packages``: mmengine
0.10.5 and transformers 4.57.6 next to torch 2.13.0 (the CPU build every
repro environment runs). Importing mmengine's optimizer package runs
``register_torch_optimizers()``, which registers every optimizer class of
torch.optim under its own name (torch 2.5 added torch.optim.Adafactor), then
``register_transformers_optimizers()``, which registers transformers'
Adafactor under the same name, and the registry refuses the second one with
a KeyError. The runner imports the optimizer package, so this is what any
mmengine-based trainer (MMDetection, XTuner, ...) does at start-up.

CPU only, one process (launcher: python).
"""

import sys
from importlib.metadata import version

print(f"mmengine {version('mmengine')}, transformers {version('transformers')}, torch {version('torch')}", flush=True)

from mmengine.runner import Runner  # noqa: E402  # fails here: the optimizer registry

print(f"imported {Runner.__name__}")
sys.exit(0)

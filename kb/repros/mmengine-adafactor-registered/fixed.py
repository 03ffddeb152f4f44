"""Fixed: mmengine 0.10.6 or newer registers torch's Adafactor as TorchAdafactor.

fixed.py runs in the environment of ``repro.fixed_requires.packages``:
mmengine 0.10.7 and transformers 4.57.6 next to the same torch 2.13.0.
mmengine 0.10.6 registers torch.optim.Adafactor under the name
``TorchAdafactor`` (open-mmlab/mmengine commit 2e0ab7a), so ``Adafactor``
stays transformers' optimizer, as configs written for mmengine expect. The
script imports the runner, then builds both optimizers from the registry.

CPU only, one process (launcher: python).
"""

import sys
from importlib.metadata import version

import torch
from packaging.version import Version

installed = version("mmengine")
print(f"mmengine {installed}, transformers {version('transformers')}, torch {version('torch')}", flush=True)
if Version(installed) < Version("0.10.6"):
    sys.exit(f"mmengine {installed} registers torch's Adafactor under the name Adafactor (fixed in 0.10.6)")

from mmengine.registry import OPTIMIZERS  # noqa: E402
from mmengine.runner import Runner  # noqa: E402

params = [torch.nn.Parameter(torch.zeros(4, 4))]
hf = OPTIMIZERS.build({"type": "Adafactor", "params": params, "lr": 1e-3, "relative_step": False, "scale_parameter": False})
native = OPTIMIZERS.build({"type": "TorchAdafactor", "params": params, "lr": 1e-2})
print(f"imported {Runner.__name__}; Adafactor -> {type(hf).__module__}, TorchAdafactor -> {type(native).__module__}")

"""Fixed: bitsandbytes 0.39.0 or newer, which has the 4-bit layers.

fixed.py runs in the environment of ``repro.fixed_requires.packages``
(bitsandbytes 0.50.2; the set is another article's, so it brings
transformers and accelerate along without using them). The same layer swap
as repro.py now builds a model of ``Linear4bit`` layers.

CPU only, one process (launcher: python).
"""

import sys
from importlib.metadata import version

import torch
from packaging.version import Version
from torch import nn

installed = version("bitsandbytes")
print(f"bitsandbytes {installed}, torch {version('torch')}", flush=True)
if Version(installed) < Version("0.39.0"):
    sys.exit(f"bitsandbytes {installed} predates Linear4bit (0.39.0)")

import bitsandbytes as bnb  # noqa: E402


def quantize_linears(model: nn.Module) -> nn.Module:
    """Replace every nn.Linear with a 4-bit NF4 layer (QLoRA's first step)."""
    for name, child in model.named_children():
        if isinstance(child, nn.Linear):
            four_bit = bnb.nn.Linear4bit(
                child.in_features,
                child.out_features,
                bias=child.bias is not None,
                compute_dtype=torch.float32,
                quant_type="nf4",
            )
            setattr(model, name, four_bit)
        else:
            quantize_linears(child)
    return model


model = quantize_linears(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)))
layers = [m for m in model.modules() if isinstance(m, bnb.nn.Linear4bit)]
assert len(layers) == 2, model
print(f"{len(layers)} Linear4bit layers built with bitsandbytes {installed}")

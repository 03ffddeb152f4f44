"""Reproduce: "module 'bitsandbytes.nn' has no attribute 'Linear4bit'".

repro.py runs in the environment of ``repro.requires.packages``:
bitsandbytes 0.38.1, the last release before 4-bit quantization
(``Linear4bit``, ``Params4bit``, NF4/FP4) and paged optimizers arrived in
0.39.0. Code written for QLoRA swaps a model's linear layers for
``bnb.nn.Linear4bit``, as PEFT and transformers' replace_with_bnb_linear do,
and the attribute is not there. On a host without CUDA, bitsandbytes 0.38.1
loads its CPU library with a warning; the failure is the same on a GPU host.

CPU only, one process (launcher: python).
"""

from importlib.metadata import version

import torch
from torch import nn

print(f"bitsandbytes {version('bitsandbytes')}, torch {version('torch')}", flush=True)

import bitsandbytes as bnb  # noqa: E402


def quantize_linears(model: nn.Module) -> nn.Module:
    """Replace every nn.Linear with a 4-bit NF4 layer (QLoRA's first step)."""
    for name, child in model.named_children():
        if isinstance(child, nn.Linear):
            four_bit = bnb.nn.Linear4bit(  # fails here before bitsandbytes 0.39.0
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
print(model)

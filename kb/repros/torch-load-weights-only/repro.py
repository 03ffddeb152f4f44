"""Reproduce: "_pickle.UnpicklingError: Weights only load failed ... Unsupported
global: GLOBAL argparse.Namespace was not an allowed global by default".

PyTorch 2.6 changed the default of ``torch.load(weights_only=...)`` from False
to True. With ``weights_only=True`` the unpickler only rebuilds tensors,
primitive containers and an allowlist of types; any other object pickled into
the file (here the ``argparse.Namespace`` of the training arguments, in real
checkpoints also numpy scalars, OmegaConf configs, a whole ``nn.Module`` or
Lightning callbacks) stops the load. The checkpoint was written the usual way
by a training script and is loaded the usual way by a resume script.

CPU only, no downloads (launcher: python); needs torch >= 2.6.
"""

import argparse
import os
import sys
import tempfile

import torch
from torch import nn


def main() -> int:
    model = nn.Linear(8, 2)
    train_args = argparse.Namespace(lr=3e-4, epochs=10, run_name="baseline")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "last.ckpt")
        torch.save({"model": model.state_dict(), "epoch": 3, "args": train_args}, path)

        ckpt = torch.load(path, map_location="cpu")  # BUG: weights_only defaults to True since torch 2.6
        model.load_state_dict(ckpt["model"])
        print("resumed from epoch", ckpt["epoch"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

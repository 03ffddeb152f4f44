"""Fixed: allowlist the one extra type the checkpoint holds, keep weights_only=True.

Same checkpoint as repro.py. ``argparse.Namespace`` is a plain attribute
container the script itself wrote, so it is allowlisted for this load with the
``torch.serialization.safe_globals`` context manager; everything else in the
file is still restricted to tensors and primitive types. (For a file you
fully trust, ``weights_only=False`` also works, but it executes whatever the
pickle contains.) The script checks the weights and the arguments came back.

CPU only, no downloads (launcher: python); needs torch >= 2.5.
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

        # FIX: allow exactly the non-tensor type this trusted checkpoint contains
        with torch.serialization.safe_globals([argparse.Namespace]):
            ckpt = torch.load(path, map_location="cpu", weights_only=True)
        fresh = nn.Linear(8, 2)
        fresh.load_state_dict(ckpt["model"])
        if not torch.equal(fresh.weight, model.weight) or ckpt["args"].lr != 3e-4:
            print("checkpoint did not round-trip", file=sys.stderr)
            return 1
        print("resumed from epoch", ckpt["epoch"], "with", ckpt["args"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

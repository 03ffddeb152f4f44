"""Reproduce: "PytorchStreamReader failed reading zip archive: failed finding
central directory" from a checkpoint file that was cut short.

torch.save writes a zip archive whose central directory (the table of contents)
comes last. A job killed while it overwrote ``last.pt`` in place (a preemption,
a time limit, the OOM killer, a full disk), or a copy/download that stopped
early, leaves a file holding only the first part of the archive. The resume
step then fails in torch.load.

The interrupted write is simulated by keeping the first half of the bytes.
CPU only, no downloads; files go to a temporary directory (launcher: python).
"""

import os
import sys
import tempfile

import torch
from torch import nn


def main() -> int:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 8))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "last.pt")
        torch.save({"model": model.state_dict(), "step": 100}, path)  # a good checkpoint
        # step 200: the job overwrites last.pt in place and is killed half-way through
        torch.save({"model": model.state_dict(), "step": 200}, path)
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 2)

        ckpt = torch.load(path, map_location="cpu", weights_only=True)  # the resume
        model.load_state_dict(ckpt["model"])
        print("resumed at step", ckpt["step"], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

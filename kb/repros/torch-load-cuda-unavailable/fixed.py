"""Fixed: map the checkpoint's storages onto a device this machine has.

Same program as repro.py. ``map_location`` rewrites the saved "cuda:0"
locations while loading ("cpu" here; ``torch.device("cuda", local_rank)``
on a GPU node), so the checkpoint loads anywhere.
"""

import io
import sys

import torch
from torch import nn


def gpu_style_checkpoint(state: dict) -> bytes:
    buffer = io.BytesIO()
    original = torch.serialization.location_tag

    def as_cuda(storage):
        return "cuda:0"

    torch.serialization.location_tag = as_cuda
    try:
        torch.save(state, buffer)
    finally:
        torch.serialization.location_tag = original
    return buffer.getvalue()


def main() -> int:
    model = nn.Linear(8, 2)
    blob = gpu_style_checkpoint({"model": model.state_dict(), "step": 1000})
    device = "cuda" if torch.cuda.is_available() else "cpu"
    state = torch.load(io.BytesIO(blob), map_location=device)  # FIX
    model.load_state_dict(state["model"])
    print("resumed at step", state["step"], "on", device)
    return 0


if __name__ == "__main__":
    sys.exit(main())

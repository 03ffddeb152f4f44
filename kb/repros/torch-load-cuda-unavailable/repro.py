"""Reproduce: "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False".

A checkpoint saved on a GPU machine stores every tensor with its device
("cuda:0"). Loading it with plain ``torch.load(path)`` on a machine where
torch sees no GPU tries to recreate the tensors on cuda:0 and fails.

The GPU-saved checkpoint is produced here by pickling CPU tensors with
their storage location rewritten to "cuda:0", exactly what torch.save
writes for CUDA tensors (the storage bytes are the same); CPU only
(launcher: python).
"""

import io
import sys

import torch
from torch import nn


def gpu_style_checkpoint(state: dict) -> bytes:
    """Serialise ``state`` as if its tensors had lived on cuda:0."""
    buffer = io.BytesIO()
    original = torch.serialization.location_tag

    def as_cuda(storage):  # what location_tag returns for CUDA storages
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
    state = torch.load(io.BytesIO(blob))  # BUG: no map_location on a CPU-only machine
    model.load_state_dict(state["model"])
    print("resumed at step", state["step"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

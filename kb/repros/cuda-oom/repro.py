"""Reproduce: CUDA out of memory in a training step (batch too large for the GPU).

A plain training step whose batch is sized from the GPU's own capacity so that
the result is the same on any card: the input batch alone takes about 60% of
the device memory and the layer's output needs as much again, so the forward
pass cannot allocate its output and the caching allocator raises
``torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ...``
(``torch.cuda.OutOfMemoryError`` before torch 2.5, ``RuntimeError: CUDA out
of memory`` before 1.13).

Requires: 1 CUDA GPU (launcher: python).
"""

import sys

import torch
from torch import nn

FEATURES = 8192


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    device = torch.device("cuda:0")
    total = torch.cuda.get_device_properties(device).total_memory
    row_bytes = FEATURES * 4  # one fp32 sample
    batch = int(0.6 * total) // row_bytes  # the "batch size" of this job

    torch.manual_seed(0)
    model = nn.Linear(FEATURES, FEATURES).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, FEATURES, device=device)
    print(f"batch {batch} x {FEATURES} fp32 = {batch * row_bytes / 2**30:.1f} GiB "
          f"on a {total / 2**30:.1f} GiB GPU", flush=True)
    loss = model(x).pow(2).mean()  # the output needs another ~60%: out of memory
    loss.backward()
    optimizer.step()
    return 0


if __name__ == "__main__":
    sys.exit(main())

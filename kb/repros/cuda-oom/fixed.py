"""Fixed: the same global batch in micro-batches with gradient accumulation.

Same model and the same number of samples per optimizer step as repro.py.
Each forward/backward pass now sees 1/16 of the batch, the gradients add up
over the 16 micro-batches, and the optimizer steps once: the update is the
same as with one big batch (the loss is scaled by 1/16), but the activations
of only one micro-batch are alive at a time. The input of each micro-batch is
generated on the GPU when it is needed, the way a DataLoader would deliver it.

Requires: 1 CUDA GPU (launcher: python).
"""

import sys

import torch
from torch import nn

FEATURES = 8192
ACCUMULATION_STEPS = 16


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    device = torch.device("cuda:0")
    total = torch.cuda.get_device_properties(device).total_memory
    row_bytes = FEATURES * 4
    batch = int(0.6 * total) // row_bytes  # the same global batch as repro.py
    micro = batch // ACCUMULATION_STEPS

    torch.manual_seed(0)
    model = nn.Linear(FEATURES, FEATURES).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    optimizer.zero_grad(set_to_none=True)
    for _ in range(ACCUMULATION_STEPS):
        x = torch.randn(micro, FEATURES, device=device)
        loss = model(x).pow(2).mean() / ACCUMULATION_STEPS
        loss.backward()
        del x, loss
    optimizer.step()
    peak = torch.cuda.max_memory_allocated(device)
    print(f"ok: {ACCUMULATION_STEPS} micro-batches of {micro}; "
          f"peak {peak / 2**30:.1f} GiB of {total / 2**30:.1f} GiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

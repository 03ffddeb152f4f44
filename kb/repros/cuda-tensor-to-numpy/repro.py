"""Reproduce: "can't convert cuda:0 device type tensor to numpy".

Validation code collects predictions with NumPy (for sklearn-style metrics)
while the model runs on the GPU. The logits are detached, but they still live
in GPU memory, and NumPy can only wrap host memory.

Needs one CUDA GPU (launcher: python).
"""

import sys

import numpy as np
import torch
from torch import nn


def main() -> int:
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = nn.Linear(16, 4).to(device)
    x = torch.randn(64, 16, device=device)
    y = torch.randint(0, 4, (64,), device=device)
    model.eval()
    with torch.no_grad():
        logits = model(x)
    predictions = np.argmax(logits.numpy(), axis=1)  # BUG: the tensor is still on the GPU
    accuracy = float(np.mean(predictions == y.cpu().numpy()))
    print(f"accuracy {accuracy:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

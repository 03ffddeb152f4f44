"""The fix: scope the default device to model construction, keep data on the CPU.

``with torch.device("cuda"):`` builds the model on the GPU without changing
what the DataLoader's sampler allocates; batches are moved explicitly. (If
the global default must stay, pass a generator on the same device:
``DataLoader(..., generator=torch.Generator(device="cuda"))``.)

Planned repro (not run here): one NVIDIA GPU (launcher: python).
"""

import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


def main() -> int:
    device = torch.device("cuda")
    with device:  # FIX: a scoped default instead of torch.set_default_device
        model = torch.nn.Linear(8, 2)
    dataset = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
    loader = DataLoader(dataset, batch_size=16, shuffle=True)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        print("loss", loss.item())
        break
    return 0


if __name__ == "__main__":
    sys.exit(main())

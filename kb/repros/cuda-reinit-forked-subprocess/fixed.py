"""Fixed: workers build CPU batches; the main process moves them to the GPU.

The dataset moves every sample to the GPU in ``__getitem__``, and the
training loop has already used CUDA (the model is on the GPU) when the
DataLoader forks its workers (fork is the default start method on Linux).
A forked child inherits a copy of the parent's CUDA state that it cannot
use, and the CUDA runtime cannot be initialised a second time in it.

Needs one CUDA GPU and Linux (fork) (launcher: python).
"""

import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class OnGpu(Dataset):
    def __init__(self) -> None:
        self.x = torch.randn(64, 16)
        self.y = torch.randint(0, 4, (64,))

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]  # FIX: workers return CPU tensors


def main() -> int:
    model = nn.Linear(16, 4).cuda()  # CUDA is initialised in the parent here
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(OnGpu(), batch_size=16, num_workers=2, pin_memory=True)
    for step, (x, y) in enumerate(loader):
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)  # FIX: move in the main process
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

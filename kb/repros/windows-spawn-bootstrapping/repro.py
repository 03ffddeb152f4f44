"""Reproduce: "An attempt has been made to start a new process before the current process has finished its bootstrapping phase".

A training script written as a flat file, without an ``if __name__ ==
"__main__":`` guard, iterates a DataLoader with worker processes. On Windows
and macOS the default start method is *spawn*: each worker starts a fresh
interpreter that re-imports the main script to find the dataset and collate
function, runs its top-level code again, reaches the DataLoader loop and tries
to start workers of its own while it is still bootstrapping. Python's
multiprocessing refuses. The spawn context is forced here so that Linux
behaves like Windows.

CPU only, no downloads (launcher: python).
"""

import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
loader = DataLoader(dataset, batch_size=16, num_workers=2, multiprocessing_context="spawn")  # as on Windows
model = torch.nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# BUG: the training loop runs at import time; spawned workers re-import this file
for step, (x, y) in enumerate(loader):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)

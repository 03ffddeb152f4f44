"""Fixed: the training code runs under ``if __name__ == "__main__":``.

Spawned DataLoader workers re-import this file as ``__mp_main__``; with the
guard they only see the definitions, not the training loop.

CPU only, no downloads (launcher: python).
"""

import torch
from torch.utils.data import DataLoader, TensorDataset


def main() -> None:
    dataset = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
    loader = DataLoader(dataset, batch_size=16, num_workers=2, multiprocessing_context="spawn")
    model = torch.nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":  # FIX: workers importing this file skip the training loop
    main()

"""Reproduce: "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'".

``torch.set_default_device("cuda")`` (or the older
``torch.set_default_tensor_type("torch.cuda.FloatTensor")``) makes every
factory call without an explicit device allocate on the GPU, including the
``torch.randperm`` that a shuffling DataLoader's RandomSampler (and
``random_split``) calls. The sampler draws the permutation with a
``torch.Generator()`` it creates itself, which lives on the CPU; a random
op on a CUDA tensor refuses a CPU generator.

Planned repro (not run here): one NVIDIA GPU (launcher: python).
"""

import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


def main() -> int:
    torch.set_default_device("cuda")  # BUG: global default for every factory call
    model = torch.nn.Linear(8, 2)  # created on the GPU, as intended
    dataset = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
    loader = DataLoader(dataset, batch_size=16, shuffle=True)
    for x, y in loader:  # RandomSampler: torch.randperm(n, generator=<cpu generator>)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        print("loss", loss.item())
        break
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: load the model without device_map="auto" so DDP gets plain tensors.

Same tiny module as repro.py; the only change is that nothing turns its
weights into DTensors before DistributedDataParallel wraps it (in transformers
terms: drop ``device_map="auto"``, or pin each process to its own device with
``device_map={"": local_rank}``). One training step proves DDP works.

Launch: torchrun --standalone --nproc-per-node=2 fixed.py  (gloo, CPU)
"""

import os
import sys

import torch
import torch.distributed as dist
from torch import nn


class TinyDecoder(nn.Module):
    def __init__(self, vocab: int = 32, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.up = nn.Linear(hidden, 4 * hidden)
        self.down = nn.Linear(4 * hidden, hidden)
        self.head = nn.Linear(hidden, vocab)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, hidden, 2) / hidden)))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.embed(ids)
        h = h + self.down(torch.relu(self.up(h)))
        return self.head(h)


def main() -> None:
    dist.init_process_group("gloo")
    torch.manual_seed(0)

    model = TinyDecoder()  # plain parameters: no tensor-parallel plan applied
    model = nn.parallel.DistributedDataParallel(model)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    ids = torch.randint(0, 32, (4, 8), generator=torch.Generator().manual_seed(dist.get_rank()))
    logits = model(ids)
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), ids.flatten())
    loss.backward()
    optimizer.step()
    if dist.get_rank() == 0:
        print(f"ok: one DDP step, loss={loss.item():.4f}")
    # Wait for every rank before tearing gloo down: a rank that leaves first
    # can abort its peer's pending socket work ("terminate called without an
    # active exception", SIGABRT) and turn a passing fix into a crash.
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    # The work is done and the group destroyed; gloo's background threads can still
    # abort interpreter shutdown after a clean run ("terminate called without an
    # active exception", SIGABRT), which would report a working fix as broken. Leave
    # without finalisation.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)

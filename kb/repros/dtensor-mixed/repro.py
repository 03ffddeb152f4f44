"""Reproduce: DDP over a model whose weights are partly DTensors.

transformers 4.50-4.53 turned ``from_pretrained(..., device_map="auto")`` into
tensor parallelism whenever WORLD_SIZE was set (torchrun / accelerate launch):
the projection weights became DTensors while other parameters and buffers
(embeddings, rotary ``inv_freq``) stayed plain tensors. accelerate / TRL then
wrapped the model in DistributedDataParallel, whose constructor broadcasts all
parameters and buffers in coalesced buckets; flattening a bucket calls
``aten.cat`` on DTensors and plain tensors together and fails.

transformers is not needed to show this: the script builds a tiny
decoder-like module, shards two of its linears with torch's own tensor-parallel
API (what the ``tp_plan`` did) and wraps it in DDP.

Launch: torchrun --standalone --nproc-per-node=2 repro.py  (gloo, CPU)
"""

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import (
    ColwiseParallel,
    RowwiseParallel,
    parallelize_module,
)


class TinyDecoder(nn.Module):
    def __init__(self, vocab: int = 32, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.up = nn.Linear(hidden, 4 * hidden)
        self.down = nn.Linear(4 * hidden, hidden)
        self.head = nn.Linear(hidden, vocab)
        # like a rotary embedding's inv_freq: a buffer, never sharded
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, hidden, 2) / hidden)))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.embed(ids)
        h = h + self.down(torch.relu(self.up(h)))
        return self.head(h)


def main() -> None:
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))

    model = TinyDecoder()
    # what device_map="auto" under a distributed launcher did in transformers 4.50-4.53
    parallelize_module(model, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})

    # what accelerator.prepare() does for a multi-GPU (DDP) run
    model = nn.parallel.DistributedDataParallel(model)

    dist.destroy_process_group()


if __name__ == "__main__":
    main()

"""Reproduce: a model split across GPUs by a device map, then moved by a training launcher.

``from_pretrained(..., device_map="auto")`` spreads the layers over all visible
GPUs and installs accelerate hooks that move each submodule's inputs to the GPU
that submodule was placed on. A data-parallel launcher (DeepSpeed's engine,
a hand-written torchrun loop) then moves the whole model to the process's own
GPU with ``module.to(local_device)``: the weights move, the hooks still send
the inputs to the old devices, and the first lookup fails in the embedding:
``Expected all tensors to be on the same device, but found at least two
devices, cuda:1 and cuda:0!`` (torch >= 2.8 words it as ``... but got index is
on cuda:0, different from other tensors on cuda:1``).

transformers/accelerate are not needed to show this: the device map and the
input-moving hooks are written out by hand with forward pre-hooks that do what
accelerate's AlignDevicesHook does.

Needs 2 CUDA GPUs in one process (launcher: python); it plays the process
whose local GPU is cuda:1.
"""

import sys

import torch
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 64, hidden: int = 32) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.block = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, hidden))
        self.lm_head = nn.Linear(hidden, vocab)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.block(self.embed_tokens(input_ids)))


def dispatch(model: nn.Module, device_map: dict[str, str]) -> None:
    """Place submodules per device_map and make each move its inputs there (like accelerate)."""
    for name, device in device_map.items():
        submodule = model.get_submodule(name)
        submodule.to(device)
        execution_device = torch.device(device)  # remembered at dispatch time

        def align_inputs(module, args, execution_device=execution_device):
            return tuple(a.to(execution_device) if torch.is_tensor(a) else a for a in args)

        submodule.register_forward_pre_hook(align_inputs)
    model.hf_device_map = dict(device_map)


def main() -> int:
    if torch.cuda.device_count() < 2:
        print("this reproduction needs at least 2 CUDA GPUs", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    local_device = torch.device("cuda", 1)  # this process's GPU (LOCAL_RANK=1)

    model = TinyLM()
    # what device_map="auto" decides for a model that spans two GPUs
    dispatch(model, {"embed_tokens": "cuda:0", "block": "cuda:1", "lm_head": "cuda:1"})

    # what a data-parallel engine does with "its" model: move it to the local GPU
    model.to(local_device)

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    input_ids = torch.randint(0, 64, (4, 16), device=local_device)
    logits = model(input_ids)
    loss = nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), input_ids[:, 1:].flatten())
    loss.backward()
    optimizer.step()
    return 0


if __name__ == "__main__":
    sys.exit(main())

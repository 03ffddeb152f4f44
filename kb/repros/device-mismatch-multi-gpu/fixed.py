"""Fixed: each training process loads the whole model on its own GPU.

Same program as repro.py without the device map: the model is placed on the
process's local GPU in one piece (``device_map={"": local_rank}`` in
transformers terms, or no device_map at all and let the launcher place it), so
no hook sends inputs to another GPU and the training step runs.

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


def main() -> int:
    if torch.cuda.device_count() < 2:
        print("this reproduction needs at least 2 CUDA GPUs", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    local_device = torch.device("cuda", 1)

    model = TinyLM().to(local_device)  # the fix: one device per process, no split
    model.to(local_device)  # the engine's own move is now harmless

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    input_ids = torch.randint(0, 64, (4, 16), device=local_device)
    logits = model(input_ids)
    loss = nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), input_ids[:, 1:].flatten())
    loss.backward()
    optimizer.step()
    print(f"ok: training step on {local_device}, loss={loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

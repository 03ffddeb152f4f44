"""Reproduce: "torch._dynamo.exc.FailOnRecompileLimitHit: Hard failure due to fullgraph=True".

A training step is compiled with ``fullgraph=True, dynamic=False`` (as
people do to be sure nothing falls back to eager) and fed batches padded
to the longest sequence in each batch, so nearly every batch has a new
sequence length. With ``dynamic=False`` every new shape fails the guards
of the graphs compiled so far and Dynamo compiles again; after
``torch._dynamo.config.recompile_limit`` (8) compilations of the same
code object it gives up. Without ``fullgraph=True`` it would silently run
the function eagerly from then on ("torch._dynamo hit
config.recompile_limit (8)" warning); with it, the step raises.

CPU only, backend="eager" so that no compiler toolchain is needed
(launcher: python).
"""

import sys

import torch


class TinyLM(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(100, 16)
        self.head = torch.nn.Linear(16, 100)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.emb(ids))


def main() -> int:
    torch.manual_seed(0)
    model = TinyLM()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    # BUG: static shapes + fullgraph, and every batch has its own length
    @torch.compile(backend="eager", fullgraph=True, dynamic=False)
    def loss_fn(ids: torch.Tensor) -> torch.Tensor:
        logits = model(ids)
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids.flatten())

    for step, seq_len in enumerate([12, 17, 9, 23, 31, 14, 40, 27, 19, 35]):
        ids = torch.randint(0, 100, (4, seq_len))  # padded to the longest sample
        loss = loss_fn(ids)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} seq_len {seq_len} loss {loss.item():.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: pad every batch to one of a few fixed lengths (buckets).

Same program as repro.py. Padding to a multiple of 64 gives the compiled
step one shape (at most a handful), so Dynamo compiles once and reuses the
graph. Marking the sequence dimension dynamic (``dynamic=None``/``True``,
or ``torch._dynamo.mark_dynamic(ids, 1)``) is the other fix; raising
``recompile_limit`` only postpones the failure.
"""

import sys

import torch

PAD_TO = 64


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

    @torch.compile(backend="eager", fullgraph=True, dynamic=False)
    def loss_fn(ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits = model(ids)
        losses = torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids.flatten(), reduction="none")
        return (losses * mask.flatten()).sum() / mask.sum()

    for step, seq_len in enumerate([12, 17, 9, 23, 31, 14, 40, 27, 19, 35]):
        padded = -(-seq_len // PAD_TO) * PAD_TO  # FIX: one bucket, one shape
        ids = torch.zeros(4, padded, dtype=torch.long)
        ids[:, :seq_len] = torch.randint(0, 100, (4, seq_len))
        mask = torch.zeros(4, padded)
        mask[:, :seq_len] = 1.0
        loss = loss_fn(ids, mask)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} seq_len {seq_len} (padded {padded}) loss {loss.item():.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: a 0-d tensor keyword argument scattered by nn.DataParallel.

transformers' Trainer (4.46.2 - 4.50.x) wraps the model in nn.DataParallel when
it sees several GPUs in a single process, and passes ``num_items_in_batch`` to
``model(**inputs)`` as a 0-d tensor. DataParallel scatters every tensor
argument along dim 0 (torch.nn.parallel.scatter_gather -> comm.scatter ->
chunk), and a 0-d tensor has no dim 0, so the forward fails with
``RuntimeError: chunk expects at least a 1-dimensional tensor``.

The script shows the same torch mechanism without transformers: a tiny model
whose forward takes the token count as a keyword argument, called through
nn.DataParallel the way Trainer.compute_loss calls it.

Needs 2 CUDA GPUs in one process (launcher: python). On a CPU-only build the
scatter never reaches chunk (torch._C._scatter does not exist), so this cannot
be reproduced without GPUs.
"""

import sys

import torch
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 32, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, input_ids, labels, num_items_in_batch=None):
        logits = self.head(self.embed(input_ids))
        loss = nn.functional.cross_entropy(
            logits.flatten(0, 1), labels.flatten(), ignore_index=-100, reduction="sum"
        )
        return loss / num_items_in_batch


def main() -> int:
    if torch.cuda.device_count() < 2:
        print("this reproduction needs at least 2 CUDA GPUs", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    n_gpu = torch.cuda.device_count()
    model = nn.DataParallel(TinyLM().to("cuda:0"))  # what Trainer does when n_gpu > 1

    input_ids = torch.randint(0, 32, (4 * n_gpu, 8), device="cuda:0")
    labels = input_ids.clone()
    labels[:, :2] = -100
    # what Trainer.get_batch_samples produces: a 0-d tensor
    num_items_in_batch = (labels != -100).sum()

    loss = model(input_ids=input_ids, labels=labels, num_items_in_batch=num_items_in_batch)
    loss.mean().backward()
    return 0


if __name__ == "__main__":
    sys.exit(main())

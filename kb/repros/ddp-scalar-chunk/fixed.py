"""Fixed: give the count a leading dimension with one entry per GPU.

Same program as repro.py. Before the call, the 0-d ``num_items_in_batch`` is
split across the replicas the way transformers >= 4.51 does it: one row per
GPU, each holding the per-replica share of the count, so DataParallel's scatter
hands every replica a 1-element tensor and the mean of the gathered losses
equals the sum over the whole batch divided by the total count.

Needs 2 CUDA GPUs in one process (launcher: python).
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
    model = nn.DataParallel(TinyLM().to("cuda:0"))

    input_ids = torch.randint(0, 32, (4 * n_gpu, 8), device="cuda:0")
    labels = input_ids.clone()
    labels[:, :2] = -100
    num_items_in_batch = (labels != -100).sum()

    # the fix: a 1-d tensor with one entry per GPU instead of a 0-d tensor
    if num_items_in_batch.dim() == 0 and n_gpu > 1:
        num_items_in_batch = (num_items_in_batch.float() / n_gpu).reshape(1).repeat(n_gpu)

    loss = model(input_ids=input_ids, labels=labels, num_items_in_batch=num_items_in_batch)
    loss = loss.mean()  # Trainer averages the per-GPU losses when n_gpu > 1
    loss.backward()
    print(f"ok: DataParallel step on {n_gpu} GPUs, loss={loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

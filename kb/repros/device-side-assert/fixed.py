"""The fix applied: check the ids against the embedding and resize it.

Before the batch reaches the GPU the script checks that every id is below
``num_embeddings``; the tokenizer really has ``VOCAB + ADDED`` tokens, so the
model is resized to match (what ``model.resize_token_embeddings(len(tokenizer))``
does for a transformers model: new rows for the embedding and the output
layer) and the training step runs.

Tiny model, one GPU (launcher: python).
"""

import sys

import torch
from torch import nn

VOCAB = 32
ADDED = 4


class TinyLM(nn.Module):
    def __init__(self, vocab: int, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(ids))

    def resize_token_embeddings(self, vocab: int) -> None:
        old_embed, old_head = self.embed, self.head
        self.embed = nn.Embedding(vocab, old_embed.embedding_dim).to(old_embed.weight.device)
        self.head = nn.Linear(old_head.in_features, vocab).to(old_head.weight.device)
        with torch.no_grad():
            self.embed.weight[: old_embed.num_embeddings] = old_embed.weight
            self.head.weight[: old_head.out_features] = old_head.weight
            self.head.bias[: old_head.out_features] = old_head.bias


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    model = TinyLM(VOCAB).cuda()
    ids = torch.randint(0, VOCAB, (4, 16))
    ids[1, 7] = VOCAB + 2

    tokenizer_size = VOCAB + ADDED
    if model.embed.num_embeddings < tokenizer_size:  # the fix
        model.resize_token_embeddings(tokenizer_size)
    vocab = model.embed.num_embeddings
    bad = int(ids.max())
    assert bad < vocab, f"token id {bad} >= num_embeddings {vocab}"

    ids = ids.cuda()
    logits = model(ids[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), ids[:, 1:].reshape(-1))
    loss.backward()
    print(f"loss {loss.item():.4f} with {vocab} embeddings")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "Trying to backward through the graph a second time".

A tiny recurrent language-model loop that carries the hidden state from one
batch to the next (truncated back-propagation through time) but forgets to
detach it. The first ``loss.backward()`` frees the saved tensors of batch 0's
graph; batch 1's loss still depends on batch 0's hidden state, so its
backward walks into the freed part of the graph and autograd raises.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn


class TinyRNNLM(nn.Module):
    def __init__(self, vocab: int = 32, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens, state):
        out, state = self.rnn(self.embed(tokens), state)
        return self.head(out), state


def main() -> int:
    torch.manual_seed(0)
    model = TinyRNNLM()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    stream = torch.randint(0, 32, (4, 65))  # 4 sequences, read in chunks of 16
    state = torch.zeros(1, 4, 16)
    for step, start in enumerate(range(0, 64, 16)):
        inputs = stream[:, start : start + 16]
        targets = stream[:, start + 1 : start + 17]
        logits, state = model(inputs, state)  # BUG: state still carries the previous graph
        loss = nn.functional.cross_entropy(logits.reshape(-1, 32), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

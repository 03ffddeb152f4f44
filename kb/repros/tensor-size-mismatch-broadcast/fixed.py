"""Fixed: the padding mask is built with the width of the padded batch.

A hand-written attention block adds an additive padding mask to the attention
scores. The collate function pads every batch to the longest sequence in the
batch (12 tokens here), but the mask is built from a fixed ``max_len`` of 16,
so scores (batch x heads x 12 x 12) and mask (batch x 1 x 1 x 16) cannot be
broadcast: dimension 3 is 12 on one side and 16 on the other, and neither is 1.

CPU only, no downloads (launcher: python).
"""

import sys

import torch
from torch import nn

MAX_LEN = 16


class Attention(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5
        scores = scores + mask  # (b, h, t, t) + (b, 1, 1, MAX_LEN)
        return (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)


def padding_mask(lengths, width):
    keep = torch.arange(width)[None, :] < lengths[:, None]
    return torch.where(keep, 0.0, float("-inf"))[:, None, None, :]


def main() -> int:
    torch.manual_seed(0)
    lengths = torch.tensor([12, 9, 7, 12])
    x = torch.randn(4, int(lengths.max()), 32)  # padded to the longest in the batch
    mask = padding_mask(lengths, x.size(1))  # FIX: the mask has the width of the batch
    out = Attention()(x, mask)
    print(out.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())

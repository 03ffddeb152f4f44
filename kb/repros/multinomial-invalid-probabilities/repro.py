"""Reproduce: "probability tensor contains either `inf`, `nan` or element < 0".

A rollout step samples the next token from softmax(logits / temperature).
The logits come from a model run in float16; one value overflowed to inf
(fp16 tops out at 65504), inf - inf inside softmax becomes NaN, and
torch.multinomial refuses a distribution containing NaN.

CPU only, no downloads (launcher: python).
"""

import sys

import torch


def main() -> int:
    torch.manual_seed(0)
    hidden = torch.randn(4, 64)
    head = torch.randn(64, 100) * 4000  # large activations, as in an fp16 model near overflow
    logits = (hidden.half() @ head.half()).float()  # BUG: fp16 matmul overflows to inf
    probs = torch.softmax(logits / 0.7, dim=-1)
    next_tokens = torch.multinomial(probs, num_samples=1)
    print(next_tokens.view(-1).tolist())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "shape mismatch: value tensor of shape [N] cannot be broadcast to indexing result of shape [M]".

A detection-style loss assigns target classes to the matched predictions
with advanced indexing: ``target_classes[idx] = matched_labels``. The matcher
returns indices for the predictions it kept (capped at ``num_queries``), but
the labels tensor still holds one entry per ground-truth box, so the values on
the right do not fit the slots selected on the left.

CPU only, no downloads (launcher: python).
"""

import sys

import torch

NUM_QUERIES = 10
NO_OBJECT = 91


def main() -> int:
    generator = torch.Generator().manual_seed(0)
    gt_labels = torch.randint(0, 91, (14,), generator=generator)  # 14 boxes in the image
    matched = torch.randperm(NUM_QUERIES, generator=generator)[: min(NUM_QUERIES, len(gt_labels))]
    target_classes = torch.full((NUM_QUERIES,), NO_OBJECT)
    target_classes[matched] = gt_labels  # BUG: 14 labels for 10 matched slots
    print(target_classes)
    return 0


if __name__ == "__main__":
    sys.exit(main())

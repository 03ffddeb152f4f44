"""Reproduce: a library written for torch 1.x imports torch._six, which torch 2.0 deleted.

repro.py runs in the environment of ``repro.requires.packages``: DeepSpeed
0.8.1 (the last release whose runtime/utils.py does ``from torch._six import
inf`` unconditionally), transformers 4.28.1 and accelerate 0.18.0 next to
torch 2.13.0 (the CPU build every repro environment runs). ``from
transformers import Trainer`` makes transformers' lazy module import
transformers.trainer, which imports accelerate, whose utils/other.py imports
DeepSpeed at module level because it is installed; DeepSpeed's import of
torch._six fails (pytorch#94709 removed the module in torch 2.0), and
transformers re-raises it as "Failed to import transformers.trainer because
of the following error".

CPU only, one process (launcher: python).
"""

import sys
from importlib.metadata import version

print(f"deepspeed {version('deepspeed')}, transformers {version('transformers')}, torch {version('torch')}", flush=True)

from transformers import Trainer  # noqa: E402  # fails here: DeepSpeed imports torch._six

print(f"imported {Trainer.__name__}")
sys.exit(0)

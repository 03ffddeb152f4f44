"""Fixed: a DeepSpeed that no longer imports torch._six, with a current transformers stack.

fixed.py runs in the environment of ``repro.fixed_requires.packages``:
DeepSpeed 0.19.8, transformers 4.57.6 and accelerate 1.15.0 next to the same
torch 2.13.0. DeepSpeed stopped importing torch._six in 0.8.2
(deepspeed#2863: ``from torch import inf`` on torch 2); the article's fix is
upgrading the stack that imports the removed module. The script checks the
version, then does the import that failed.

CPU only, one process (launcher: python).
"""

import sys
from importlib.metadata import version

from packaging.version import Version

installed = version("deepspeed")
print(f"deepspeed {installed}, transformers {version('transformers')}, torch {version('torch')}", flush=True)
if Version(installed) < Version("0.8.2"):
    sys.exit(f"deepspeed {installed} still imports torch._six (fixed in 0.8.2)")

from transformers import Trainer  # noqa: E402

import deepspeed  # noqa: E402

print(f"imported {Trainer.__name__} and deepspeed {deepspeed.__version__}")

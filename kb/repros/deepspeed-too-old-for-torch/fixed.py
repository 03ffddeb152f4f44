"""Fixed: DeepSpeed 0.14.4 or newer, which imports only what torch >= 2.4 still has.

fixed.py runs in the environment of ``repro.fixed_requires.packages``:
DeepSpeed 0.19.8 next to the same torch 2.13.0. The article's fix is that
upgrade: deepspeed#5654, released in 0.14.4, imports ``get_free_port`` from
torch.distributed.elastic.utils.distributed and uses ``logger`` (0.19.8 no
longer ships the deepspeed/elasticity package at all). The script checks the
version, then imports DeepSpeed, which is what failed.

CPU only, one process (launcher: python).
"""

import sys
from importlib.metadata import version

from packaging.version import Version

installed = version("deepspeed")
print(f"deepspeed {installed}, torch {version('torch')}", flush=True)
if Version(installed) < Version("0.14.4"):
    sys.exit(f"deepspeed {installed} is older than 0.14.4, the fixed release")

import deepspeed  # noqa: E402

print(f"imported deepspeed {deepspeed.__version__}")

"""Reproduce: "ModuleNotFoundError: No module named 'torch'" for a package that
is installed -- the worker runs under an interpreter that does not see it.

Launchers (``torchrun``, ``deepspeed``, ``accelerate launch``, a
``#!/usr/bin/env python`` shebang, ``sudo``, a job scheduler, a Jupyter kernel)
start the training script with whatever Python *they* resolve, which is not
necessarily the environment where the packages were installed. This script
plays such a launcher: it starts the worker with an interpreter whose
site-packages are not this environment's (``python -S``, i.e. no site
directories: the same view a system Python or another venv has), so ``import
torch`` fails although ``pip list`` in this environment shows torch.

CPU only, no downloads (launcher: python).
"""

import os
import subprocess
import sys
import tempfile

WORKER = """
import torch
print("worker sees torch", torch.__version__)
"""


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        worker = os.path.join(tmp, "train.py")
        with open(worker, "w") as f:
            f.write(WORKER)
        # BUG: the "launcher" runs the worker with an interpreter that lacks this environment's packages
        result = subprocess.run([sys.executable, "-S", worker], capture_output=True, text=True, timeout=60)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())

"""Fixed: start the worker with the environment's own interpreter.

Same launcher as repro.py, but the worker runs under ``sys.executable`` with
its normal site-packages, the equivalent of ``python -m torch.distributed.run``
instead of a bare ``torchrun`` from another environment. The script also
prints which interpreter and torch the worker used, the first check to make
when a launcher cannot import an installed package.

CPU only, no downloads (launcher: python).
"""

import os
import subprocess
import sys
import tempfile

WORKER = """
import sys
import torch
print("worker interpreter", sys.executable)
print("worker sees torch", torch.__version__, "from", torch.__file__)
"""


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        worker = os.path.join(tmp, "train.py")
        with open(worker, "w") as f:
            f.write(WORKER)
        # FIX: the same interpreter that has the packages
        result = subprocess.run([sys.executable, worker], capture_output=True, text=True, timeout=60)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        if result.returncode != 0 or "worker sees torch" not in result.stdout:
            return 1
        return 0


if __name__ == "__main__":
    sys.exit(main())

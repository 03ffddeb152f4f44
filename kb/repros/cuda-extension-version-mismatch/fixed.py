"""Fixed: the toolkit's CUDA major matches torch's (12.6 for a torch built with 12.8).

The same build as repro.py against a toolkit folder whose nvcc reports 12.6:
``_check_cuda_version`` passes with a warning about the minor version, and the
build goes on to compile (skipped here: there is no real nvcc).
"""

import sys

from repro import build

if __name__ == "__main__":
    sys.exit(build("12.6"))

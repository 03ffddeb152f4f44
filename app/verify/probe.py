"""Report the environment under test as JSON (run by its interpreter: ``python -I probe.py NAMES``).

Versions come from ``importlib.metadata`` and the CUDA version torch was
built with from ``torch/version.py`` read as text: importing torch would cost
seconds and, on a GPU worker, initialise a CUDA context before the repro runs.
Standard library only, Python 3.8 syntax: errkb is not installed there.
"""

from __future__ import annotations

import json
import platform
import re
import sys
from importlib import metadata  # Python 3.8+

CUDA_LINE = re.compile(r"""^cuda\b[^=\n]*=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def torch_cuda() -> str | None:
    """``torch.version.cuda`` without importing torch; None for CPU and ROCm builds."""
    try:
        path = metadata.distribution("torch").locate_file("torch/version.py")
        with open(str(path), encoding="utf-8") as handle:
            found = CUDA_LINE.search(handle.read())
    except (metadata.PackageNotFoundError, OSError):
        return None
    return found.group(1) if found else None


def main(argv: list[str]) -> None:
    names = json.loads(argv[1]) if len(argv) > 1 else []
    report = {
        "python": platform.python_version(),
        "torch": version("torch"),
        "cuda": torch_cuda(),
        "packages": {name: version(name) for name in names},
    }
    sys.stdout.write(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv)

"""Fixed: read package metadata with the standard library.

Same check as repro.py using ``importlib.metadata`` (Python 3.8+), which
replaces ``pkg_resources.get_distribution(...).version``; version comparison
uses ``packaging.version`` where needed. Works with any setuptools, or none.

CPU only, no downloads (launcher: python).
"""

import sys
from importlib.metadata import PackageNotFoundError, version


def main() -> int:
    try:
        torch_version = version("torch")  # FIX: stdlib replacement for pkg_resources
    except PackageNotFoundError:
        print("torch is not installed", file=sys.stderr)
        return 1
    print("torch", torch_version)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduce: "ModuleNotFoundError: No module named 'pkg_resources'".

``pkg_resources`` was part of setuptools, long deprecated in favour of
``importlib.metadata`` / ``importlib.resources``, and removed from setuptools
82 (2026). Python 3.12+ virtual environments do not even ship setuptools. Old
training code and older releases of tools (and some packages' ``__init__``)
still ``import pkg_resources`` to read versions or entry points, and fail at
import time in a fresh environment.

CPU only, no downloads (launcher: python); needs setuptools >= 82 (or none).
"""

import sys

import pkg_resources  # BUG: not part of current setuptools


def main() -> int:
    version = pkg_resources.get_distribution("torch").version
    print("torch", version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
